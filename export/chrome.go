package export

import (
	"github.com/chronon-sim/chronon-go/internal/argview"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/chronon-sim/chronon-go/schema"
)

// chromeSink writes the Trace Event Format ({"traceEvents":[...]}) that
// chrome://tracing, Perfetto's JSON importer and many other tools read.
// There is one process (pid 1, named after the simulation); each track is a
// thread (tid) named with its full dotted path; counters are "C" events.
// Flows use the v2 form, bind_id with flow_in/flow_out on slices (see
// flowEnds for which ends each event gets); events carrying a flow are
// written as zero-duration slices ("X") so the flow has something to bind
// to.
type chromeSink struct {
	out    *splitFile
	sim    string
	b      []byte
	events int // events in the current file (for the separating comma)
	flows  *flowEnds
}

func newChromeSink(path, sim string, flows *flowEnds) (*chromeSink, error) {
	if sim == "" {
		sim = "trace"
	}
	s := &chromeSink{sim: sim, flows: flows}
	var err error
	if s.out, err = newSplitFile(path); err != nil {
		return nil, err
	}
	return s, s.startFile()
}

func (s *chromeSink) startFile() error {
	s.events = 0
	s.b = append(s.b[:0], `{"displayTimeUnit":"ns","traceEvents":[`...)
	s.b = append(s.b, '\n')
	s.b = append(s.b, `{"ph":"M","pid":1,"name":"process_name","args":{"name":`...)
	s.b = appendJSONString(s.b, s.sim)
	s.b = append(s.b, "}}"...)
	s.events++
	return s.flush()
}

func (s *chromeSink) flush() error {
	err := s.out.write(s.b)
	s.b = s.b[:0]
	return err
}

// head starts one event object.
func (s *chromeSink) head(ph string, ns uint64, t *track) {
	b := s.b
	if s.events > 0 {
		b = append(b, ",\n"...)
	}
	s.events++
	b = append(b, `{"ph":"`...)
	b = append(b, ph...)
	b = append(b, `","pid":`...)
	b = strconv.AppendInt(b, int64(t.pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(t.tid), 10)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, ns)
	s.b = b
}

// appendMicros writes ns as microseconds with three decimals, exactly.
func appendMicros(b []byte, ns uint64) []byte {
	b = strconv.AppendUint(b, ns/1000, 10)
	if frac := ns % 1000; frac != 0 {
		b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	}
	return b
}

func (s *chromeSink) declare(t *track) error {
	if t.parent == nil && t.pid > 1 { // a process of WithProcesses
		if s.events > 0 {
			s.b = append(s.b, ",\n"...)
		}
		s.events++
		s.b = append(s.b, `{"ph":"M","pid":`...)
		s.b = strconv.AppendInt(s.b, int64(t.pid), 10)
		s.b = append(s.b, `,"name":"process_name","args":{"name":`...)
		s.b = appendJSONString(s.b, t.name)
		s.b = append(s.b, "}}"...)
		return s.maybeFlush()
	}
	if t.parent == nil || t.counter {
		return nil // the process (named in startFile) and counters, which are keyed by name
	}
	if s.events > 0 {
		s.b = append(s.b, ",\n"...)
	}
	s.events += 2
	s.b = append(s.b, `{"ph":"M","pid":`...)
	s.b = strconv.AppendInt(s.b, int64(t.pid), 10)
	s.b = append(s.b, `,"tid":`...)
	s.b = strconv.AppendInt(s.b, int64(t.tid), 10)
	s.b = append(s.b, `,"name":"thread_name","args":{"name":`...)
	s.b = appendJSONString(s.b, t.path())
	s.b = append(s.b, "}},\n"...)
	s.b = append(s.b, `{"ph":"M","pid":`...)
	s.b = strconv.AppendInt(s.b, int64(t.pid), 10)
	s.b = append(s.b, `,"tid":`...)
	s.b = strconv.AppendInt(s.b, int64(t.tid), 10)
	s.b = append(s.b, `,"name":"thread_sort_index","args":{"sort_index":`...)
	s.b = strconv.AppendInt(s.b, int64(t.tid), 10)
	s.b = append(s.b, "}}"...)
	return s.maybeFlush()
}

func (s *chromeSink) maybeFlush() error {
	if len(s.b) >= 64<<10 {
		return s.flush()
	}
	return nil
}

func (s *chromeSink) nameAndArgs(f *fmtInfo, v *argview.View, flow uint64) {
	b := append(s.b, `,"name":`...)
	b = appendJSONString(b, f.name)
	if flow != 0 && s.flows != nil {
		// An event alone in its chain (in this file) gets no flow fields:
		// it has no arrow.
		switch in, out := s.flows.step(flow); {
		case in && out:
			b = appendBindID(b, flow)
			b = append(b, `,"flow_in":true,"flow_out":true`...)
		case out:
			b = appendBindID(b, flow)
			b = append(b, `,"flow_out":true`...)
		case in:
			b = appendBindID(b, flow)
			b = append(b, `,"flow_in":true`...)
		}
	}
	s.b = b
	if v != nil && len(f.plain) > 0 && v.Has(f.plain[0]) {
		s.args(f, v)
	}
}

// args writes the event's plain arguments as its "args" object.
func (s *chromeSink) args(f *fmtInfo, v *argview.View) {
	b := append(s.b, `,"args":{`...)
	for k, i := range f.plain {
		if !v.Has(i) {
			break
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.names[i])
		b = append(b, ':')
		b = appendJSONValue(b, f, v, i)
	}
	s.b = append(b, '}')
}

func appendBindID(b []byte, flow uint64) []byte {
	b = append(b, `,"bind_id":"0x`...)
	b = strconv.AppendUint(b, flow, 16)
	return append(b, '"')
}

func (s *chromeSink) begin(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error {
	s.parentArrowEnd(ns, t, lk)
	s.head("B", ns, t)
	s.nameAndArgs(f, v, flow)
	s.b = append(s.b, '}')
	if lk != nil {
		for k := lk.from; k < lk.to; k++ {
			if id := edgeFlow(lk.node, k); id != 0 {
				s.parentArrow("s", id, ns, t)
			}
		}
	}
	return s.maybeFlush()
}

// end closes t's slice; an end event's arguments (f, v) go on its E,
// which viewers merge into the slice's.
func (s *chromeSink) end(ns uint64, t *track, f *fmtInfo, v *argview.View) error {
	s.head("E", ns, t)
	if f != nil && v != nil && len(f.plain) > 0 && v.Has(f.plain[0]) {
		s.args(f, v)
	}
	s.b = append(s.b, '}')
	return s.maybeFlush()
}

func (s *chromeSink) instant(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error {
	s.parentArrowEnd(ns, t, lk)
	if flow != 0 || lk != nil && lk.in != 0 {
		s.head("X", ns, t) // a slice, which an arrow binds to
		s.b = append(s.b, `,"dur":0`...)
	} else {
		s.head("i", ns, t)
		s.b = append(s.b, `,"s":"t"`...)
	}
	s.nameAndArgs(f, v, flow)
	s.b = append(s.b, '}')
	return s.maybeFlush()
}

// Parent arrows (trees.go) are flow events of the Trace Event Format's
// first form, one pair per edge, since a slice has one bind_id: "s" right
// after the parent's B (it binds to the slice enclosing it: the parent),
// "f" right before the child's B or X (without "bp":"e" it binds to the
// next slice of its thread: the child). Both carry the same cat and name,
// which with the id name the flow.

// parentArrowEnd writes the end of the arrow from the event's parent.
func (s *chromeSink) parentArrowEnd(ns uint64, t *track, lk *links) {
	if lk != nil && lk.in != 0 {
		s.parentArrow("f", lk.in, ns, t)
	}
}

func (s *chromeSink) parentArrow(ph string, id, ns uint64, t *track) {
	s.head(ph, ns, t)
	s.b = append(s.b, `,"cat":"parent","name":"parent","id":"0x`...)
	s.b = strconv.AppendUint(s.b, id, 16)
	s.b = append(s.b, `"}`...)
}

func (s *chromeSink) counter(ns uint64, t *track, f *fmtInfo, v *argview.View) error {
	s.head("C", ns, t)
	s.b = append(s.b, `,"name":`...)
	s.b = appendJSONString(s.b, t.path())
	s.b = append(s.b, `,"args":{"value":`...)
	if v.Has(f.value) {
		s.b = appendJSONValue(s.b, valueFormat, v, f.value)
	} else {
		s.b = append(s.b, '0')
	}
	s.b = append(s.b, "}}"...)
	return s.maybeFlush()
}

// valueFormat prints a counter's value: not hex, not a symbol.
var valueFormat = &fmtInfo{}

func (s *chromeSink) written() int64 { return s.out.n + int64(len(s.b)) }

func (s *chromeSink) endFile() error {
	s.b = append(s.b, "\n]}\n"...)
	return s.flush()
}

func (s *chromeSink) split() error {
	if err := s.endFile(); err != nil {
		return err
	}
	if err := s.out.next(); err != nil {
		return err
	}
	if s.flows != nil {
		s.flows.newFile()
	}
	return s.startFile()
}

func (s *chromeSink) finish() error {
	if err := s.endFile(); err != nil {
		return err
	}
	return s.out.close()
}

func (s *chromeSink) files() []string { return s.out.paths }

// appendJSONValue writes argument i as a JSON value: numbers for numbers
// (hex-formatted integers and pointers as "0x..." strings, non-finite floats
// as strings, which JSON has no number for), booleans, strings, symbols'
// strings.
func appendJSONValue(b []byte, f *fmtInfo, v *argview.View, i int) []byte {
	t := v.Types[i]
	hex := f.hex(i)
	switch {
	case f.anySym && f.syms[i]:
		return appendJSONString(b, f.symbol(v, i))
	case t == schema.ArgString:
		return appendJSONString(b, string(v.Str(i)))
	case t == schema.ArgBool:
		return strconv.AppendBool(b, v.Uint(i) != 0)
	case isFloat(t):
		f := v.Float(i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case t == schema.ArgPointer || hex:
		b = append(b, `"0x`...)
		b = strconv.AppendUint(b, v.HexValue(i), 16)
		return append(b, '"')
	case isSigned(t):
		return strconv.AppendInt(b, int64(v.Uint(i)), 10)
	}
	return strconv.AppendUint(b, v.Uint(i), 10)
}

// appendJSONString quotes s for JSON; bytes that are not UTF-8 become U+FFFD
// so that the output always parses.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
		}
	}
	return append(b, '"')
}
