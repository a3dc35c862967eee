package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// kFmt is what the Kanata export needs to know about a format.
type kFmt struct {
	kind  schema.EventKind // as recorded (KindFlush kept), a complete span without a duration an instant
	types []schema.ArgType
	flow  int    // index of the flow argument, or -1: the event belongs to no instruction
	dur   int    // index of the duration argument (complete spans)
	dep   int    // index of the dependency argument (schema.RoleDepends), or -1
	off   []int  // byte offset of argument i when all before it are fixed-size, else -1
	name  string // stage name (escaped); "" when the unit's last path element names it
	lane  uint8  // Kanata lane: 0 stage, 1 stall
	async bool   // recorded as an async begin or end (kind says instant): counted to say why a file is refused
}

// stallWord marks a stall: a span whose name, or the name of one of its
// categories, contains it (ASCII case-insensitively) goes to lane 1, which
// Konata overlays on the stages of lane 0.
const stallWord = "stall"

// isStall applies the stall rule to a span format.
func isStall(f *mmapio.Format, cats []schema.Category) bool {
	if containsFold(f.Name, stallWord) || (f.Name == "" && containsFold(f.Format.Format, stallWord)) {
		return true
	}
	for _, c := range cats {
		if f.Category&c.Mask != 0 && containsFold(c.Name, stallWord) {
			return true
		}
	}
	return false
}

func containsFold(s, word string) bool { return strings.Contains(strings.ToLower(s), word) }

// kanataFormats indexes r's formats by id for the Kanata export.
func kanataFormats(r *mmapio.Reader) []*kFmt {
	var fmts []*kFmt
	cats := r.Categories()
	for _, f := range r.Formats() {
		if f.ID >= 1<<24 {
			continue // no writer makes such ids (as formatTable)
		}
		for int(f.ID) >= len(fmts) {
			fmts = append(fmts, nil)
		}
		if fmts[f.ID] != nil {
			continue // the first entry with an id wins, as in the original reader
		}
		k := &kFmt{kind: f.Kind, types: f.ArgTypes, flow: -1, dur: -1, dep: -1, name: tracetext.EscapeText(f.Name)}
		k.off = make([]int, len(f.ArgTypes))
		p := 0
		for i, t := range f.ArgTypes {
			if p >= 0 && (t.Size() == 0 || t == schema.ArgString) {
				p = -1 // a string or an unknown type: it and the arguments after it are located by a View
			}
			k.off[i] = p
			if p >= 0 {
				p += t.Size()
			}
		}
		// Flows, durations and dependencies are integers, one of each per
		// format, as chronon registers them; a crafted schema's role on
		// another type, or a second argument with the role, is ignored
		// (the first integer argument with the role counts).
		for i, t := range f.ArgTypes {
			if t < schema.ArgInt8 || t > schema.ArgUInt64 {
				continue
			}
			switch f.Role(i) {
			case schema.RoleFlow:
				k.flow = firstRole(k.flow, i)
			case schema.RoleDuration:
				k.dur = firstRole(k.dur, i)
			case schema.RoleDepends:
				k.dep = firstRole(k.dep, i)
			}
		}
		// Async spans are not stages (an instruction's stages are its
		// flow's lane spans): their events are instants of the row.
		k.async = k.kind == schema.KindAsyncBegin || k.kind == schema.KindAsyncEnd
		if k.kind > schema.KindRetire || k.kind == schema.KindAsyncBegin || k.kind == schema.KindAsyncEnd ||
			(k.kind == schema.KindSpanComplete && k.dur < 0) {
			k.kind = schema.KindInstant
		}
		if k.isSpan() && isStall(f, cats) {
			k.lane = 1
		}
		fmts[f.ID] = k
	}
	return fmts
}

// arg reads integer argument i of an event (0, false when i < 0 or the
// event lacks it: only the first arg_count arguments wholly present exist).
// An argument at a fixed offset is read in place; the others through v,
// which is reset for the event: most events need one or two of their
// arguments, not all located.
func (k *kFmt) arg(i int, ev *mmapio.Event, v *argview.View) (uint64, bool) {
	if i < 0 {
		return 0, false
	}
	raw := ev.RawArgs()
	if off := k.off[i]; off >= 0 {
		t := k.types[i]
		if i >= int(ev.ArgCount) || off+t.Size() > len(raw) {
			return 0, false
		}
		return argview.UintAt(t, raw[off:]), true
	}
	v.Reset(k.types, raw, int(ev.ArgCount))
	if !v.Has(i) {
		return 0, false
	}
	return v.Uint(i), true
}

// firstRole keeps an argument index already found (-1: none yet).
func firstRole(have, i int) int {
	if have >= 0 {
		return have
	}
	return i
}

func (k *kFmt) isSpan() bool {
	return k.kind >= schema.KindSpanBegin && k.kind <= schema.KindSpanComplete
}

// needFlowsAndSpans says why the selected events cannot be exported to
// Kanata when none carries a flow id or none of those is a span: the
// registered formats do not tell (a schema lists every format the
// simulator registered, used or not), the events do. A selection without
// any event (a window past the trace, or between its events) says so,
// naming the window.
func needFlowsAndSpans(path string, q mmapio.Query, le *lastEvents) error {
	if le.events == 0 {
		where := "" // no window: the file (or the units selected) has no events
		if start, end, ok := q.Cycles(); ok {
			where = " (cycles " + strconv.FormatUint(start, 10) + "-" + strconv.FormatUint(end, 10) + ")"
		}
		return fmt.Errorf("%s: cannot export to kanata: no events in the selection%s", path, where)
	}
	const async = "async spans (begun and ended by an id)"
	var has string
	switch {
	case le.n == 0 && le.spans == 0 && le.asyncs > 0:
		has = async + " but no flows and no lane spans"
	case le.n == 0 && le.spans == 0:
		has = "neither flows nor spans"
	case le.n == 0:
		has = "spans but no flows (no event has a non-zero flow id)"
	case le.flowSpans == 0 && le.asyncs > 0:
		has = "flows and " + async + " but no lane spans on the flows"
	case le.flowSpans == 0:
		has = "flows but no spans on them"
	default:
		return nil
	}
	var note string
	if le.asyncs > 0 {
		note = "; async spans are not stages (Perfetto and Chrome JSON show them)"
	}
	return fmt.Errorf("%s: cannot export to kanata: the events selected have %s; Kanata shows one row per instruction "+
		"and needs flows (an argument with the flow role naming the instruction) and lane spans on them "+
		"(its stages)%s", path, has, note)
}

// unitStage is the stage name of a span format without a name: the last
// element of its unit's dotted path ("core0.decode" -> "decode").
func unitStage(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		name = "stage"
	}
	return tracetext.EscapeText(name)
}
