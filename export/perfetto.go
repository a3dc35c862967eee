package export

import (
	"bufio"
	"fmt"
	"github.com/chronon-sim/chronon-go/internal/argview"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chronon-sim/chronon-go/schema"
)

// perfettoSink writes a Perfetto protobuf trace: a Trace message is a
// sequence of length-delimited TracePacket fields (number 1), so packets are
// streamed one by one and the file never has to be held in memory.
//
// All packets belong to one sequence (trusted_packet_sequence_id 1). The
// first packet of each file clears the incremental state; every later packet
// says it needs it, and names are interned (EventName, DebugAnnotationName)
// in the packet that first uses them in that file.
type perfettoSink struct {
	out   *splitFile
	gen   uint32 // file number, from 1
	pkt   []byte
	ev    []byte
	tmp   []byte
	names internTable // event names
	anns  internTable // debug annotation names
}

const sequenceID = 1

// internTable gives strings interning ids and remembers in which file each
// was last emitted.
type internTable struct {
	iid  map[string]uint64
	gen  map[string]uint32
	next uint64
}

func (t *internTable) id(s string) uint64 {
	if t.iid == nil {
		t.iid, t.gen, t.next = map[string]uint64{}, map[string]uint32{}, 1
	}
	id, ok := t.iid[s]
	if !ok {
		id = t.next
		t.next++
		t.iid[s] = id
	}
	return id
}

func newPerfettoSink(path string) (*perfettoSink, error) {
	s := &perfettoSink{gen: 1}
	var err error
	if s.out, err = newSplitFile(path); err != nil {
		return nil, err
	}
	return s, s.startFile()
}

// startFile writes the packet that clears the sequence's incremental state.
func (s *perfettoSink) startFile() error {
	p := s.pkt[:0]
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	p = protowire.AppendTag(p, fPacketSequenceFlags, protowire.VarintType)
	p = protowire.AppendVarint(p, seqIncrementalStateCleared)
	p = protowire.AppendTag(p, fPacketFirstOnSeq, protowire.VarintType)
	p = protowire.AppendVarint(p, 1)
	s.pkt = p
	return s.writePacket(p)
}

func (s *perfettoSink) writePacket(p []byte) error {
	var hdr [16]byte
	h := protowire.AppendTag(hdr[:0], fTracePacket, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(len(p)))
	if err := s.out.write(h); err != nil {
		return err
	}
	return s.out.write(p)
}

func (s *perfettoSink) declare(t *track) error {
	d := s.tmp[:0]
	d = protowire.AppendTag(d, fTrackUUID, protowire.VarintType)
	d = protowire.AppendVarint(d, t.uuid)
	d = protowire.AppendTag(d, fTrackName, protowire.BytesType)
	d = protowire.AppendString(d, t.name)
	if t.parent != nil {
		d = protowire.AppendTag(d, fTrackParentUUID, protowire.VarintType)
		d = protowire.AppendVarint(d, t.parent.uuid)
		d = protowire.AppendTag(d, fTrackSiblingRank, protowire.VarintType)
		d = protowire.AppendVarint(d, uint64(t.rank))
	}
	if t.counter {
		d = protowire.AppendTag(d, fTrackCounter, protowire.BytesType)
		d = protowire.AppendVarint(d, 0) // an empty CounterDescriptor
	} else {
		d = protowire.AppendTag(d, fTrackChildOrdering, protowire.VarintType)
		d = protowire.AppendVarint(d, childOrderingExplicit)
	}
	s.tmp = d
	p := s.pkt[:0]
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	p = protowire.AppendTag(p, fPacketTrackDesc, protowire.BytesType)
	p = protowire.AppendBytes(p, d)
	s.pkt = p
	return s.writePacket(p)
}

// packet starts an event packet at ns; interned names not yet emitted in
// this file go into its interned_data.
func (s *perfettoSink) packet(ns uint64, f *fmtInfo, v *argview.View) []byte {
	p := s.pkt[:0]
	p = protowire.AppendTag(p, fPacketTimestamp, protowire.VarintType)
	p = protowire.AppendVarint(p, ns)
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	p = protowire.AppendTag(p, fPacketSequenceFlags, protowire.VarintType)
	p = protowire.AppendVarint(p, seqNeedsIncrementalState)
	if f == nil {
		return p
	}
	d := s.tmp[:0]
	if s.names.gen[f.name] != s.gen || s.names.iid == nil {
		id := s.names.id(f.name)
		s.names.gen[f.name] = s.gen
		d = appendInterned(d, fInternedEventNames, id, f.name)
	}
	if v != nil {
		for _, i := range f.plain {
			if !v.Has(i) {
				break
			}
			name := f.names[i]
			if s.anns.gen[name] != s.gen || s.anns.iid == nil {
				id := s.anns.id(name)
				s.anns.gen[name] = s.gen
				d = appendInterned(d, fInternedAnnotationName, id, name)
			}
		}
	}
	if len(d) > 0 {
		p = protowire.AppendTag(p, fPacketInternedData, protowire.BytesType)
		p = protowire.AppendBytes(p, d)
	}
	s.tmp = d
	return p
}

func appendInterned(d []byte, field protowire.Number, iid uint64, name string) []byte {
	var m [64]byte
	e := protowire.AppendTag(m[:0], fInternedIID, protowire.VarintType)
	e = protowire.AppendVarint(e, iid)
	e = protowire.AppendTag(e, fInternedStr, protowire.BytesType)
	e = protowire.AppendString(e, name)
	d = protowire.AppendTag(d, field, protowire.BytesType)
	return protowire.AppendBytes(d, e)
}

// event appends the track_event field built in s.ev to p and writes it.
func (s *perfettoSink) finishEvent(p []byte) error {
	p = protowire.AppendTag(p, fPacketTrackEvent, protowire.BytesType)
	p = protowire.AppendBytes(p, s.ev)
	s.pkt = p
	return s.writePacket(p)
}

func (s *perfettoSink) eventHead(typ uint64, t *track, f *fmtInfo) {
	e := s.ev[:0]
	e = protowire.AppendTag(e, fEventType, protowire.VarintType)
	e = protowire.AppendVarint(e, typ)
	e = protowire.AppendTag(e, fEventTrackUUID, protowire.VarintType)
	e = protowire.AppendVarint(e, t.uuid)
	if f != nil {
		e = protowire.AppendTag(e, fEventNameIID, protowire.VarintType)
		e = protowire.AppendVarint(e, s.names.id(f.name))
	}
	s.ev = e
}

func (s *perfettoSink) annotations(f *fmtInfo, v *argview.View, flow uint64) {
	e := s.ev
	if v != nil {
		var a [64]byte
		for _, i := range f.plain {
			if !v.Has(i) {
				break
			}
			b := protowire.AppendTag(a[:0], fAnnNameIID, protowire.VarintType)
			b = protowire.AppendVarint(b, s.anns.id(f.names[i]))
			b = appendAnnValue(b, v, i, f.hex(i))
			e = protowire.AppendTag(e, fEventDebugAnnotations, protowire.BytesType)
			e = protowire.AppendBytes(e, b)
		}
	}
	if flow != 0 {
		e = protowire.AppendTag(e, fEventFlowIDs, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, flow)
	}
	s.ev = e
}

// appendAnnValue encodes argument i as a typed debug annotation value.
// Hex-formatted integers ({:x}) become pointer values, which viewers show in
// hex, as the format asked.
func appendAnnValue(b []byte, v *argview.View, i int, hex bool) []byte {
	t := v.Types[i]
	switch {
	case t == schema.ArgString:
		b = protowire.AppendTag(b, fAnnString, protowire.BytesType)
		return protowire.AppendBytes(b, v.Str(i))
	case t == schema.ArgBool:
		b = protowire.AppendTag(b, fAnnBool, protowire.VarintType)
		return protowire.AppendVarint(b, boolBit(v.Uint(i)))
	case isFloat(t):
		b = protowire.AppendTag(b, fAnnDouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.Float(i)))
	case t == schema.ArgPointer || hex:
		b = protowire.AppendTag(b, fAnnPointer, protowire.VarintType)
		return protowire.AppendVarint(b, v.HexValue(i))
	case isSigned(t):
		b = protowire.AppendTag(b, fAnnInt, protowire.VarintType)
		return protowire.AppendVarint(b, v.Uint(i))
	default:
		b = protowire.AppendTag(b, fAnnUint, protowire.VarintType)
		return protowire.AppendVarint(b, v.Uint(i))
	}
}

func boolBit(v uint64) uint64 {
	if v != 0 {
		return 1
	}
	return 0
}

func (s *perfettoSink) begin(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64) error {
	p := s.packet(ns, f, v)
	s.eventHead(typeSliceBegin, t, f)
	s.annotations(f, v, flow)
	return s.finishEvent(p)
}

func (s *perfettoSink) end(ns uint64, t *track) error {
	p := s.packet(ns, nil, nil)
	s.eventHead(typeSliceEnd, t, nil)
	return s.finishEvent(p)
}

func (s *perfettoSink) instant(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64) error {
	p := s.packet(ns, f, v)
	s.eventHead(typeInstant, t, f)
	s.annotations(f, v, flow)
	return s.finishEvent(p)
}

func (s *perfettoSink) counter(ns uint64, t *track, f *fmtInfo, v *argview.View) error {
	p := s.packet(ns, nil, nil)
	s.eventHead(typeCounter, t, nil)
	e := s.ev
	switch {
	case !v.Has(f.value):
		e = protowire.AppendTag(e, fEventCounterValue, protowire.VarintType)
		e = protowire.AppendVarint(e, 0)
	case isFloat(v.Types[f.value]):
		e = protowire.AppendTag(e, fEventDoubleCounter, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, math.Float64bits(v.Float(f.value)))
	default:
		e = protowire.AppendTag(e, fEventCounterValue, protowire.VarintType)
		e = protowire.AppendVarint(e, v.Uint(f.value))
	}
	s.ev = e
	return s.finishEvent(p)
}

func (s *perfettoSink) written() int64 { return s.out.n }

func (s *perfettoSink) split() error {
	if err := s.out.next(); err != nil {
		return err
	}
	s.gen++
	return s.startFile()
}

func (s *perfettoSink) finish() error   { return s.out.close() }
func (s *perfettoSink) files() []string { return s.out.paths }

// splitFile writes path, then path's name with .part2, .part3 ... before
// its extension when the output is split.
type splitFile struct {
	base  string
	paths []string
	f     *os.File
	w     *bufio.Writer
	n     int64
}

func newSplitFile(path string) (*splitFile, error) {
	s := &splitFile{base: path}
	return s, s.open(path)
}

func (s *splitFile) open(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	s.f, s.w, s.n = f, bufio.NewWriterSize(f, 1<<20), 0
	s.paths = append(s.paths, path)
	return nil
}

func (s *splitFile) write(b []byte) error {
	s.n += int64(len(b))
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("export: writing %s: %w", s.f.Name(), err)
	}
	return nil
}

func (s *splitFile) next() error {
	if err := s.close(); err != nil {
		return err
	}
	return s.open(partName(s.base, len(s.paths)+1))
}

func (s *splitFile) close() error {
	if s.f == nil {
		return nil
	}
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// partName inserts ".partN" before the extension: out.pftrace -> out.part2.pftrace.
func partName(base string, n int) string {
	ext := ""
	for i := len(base) - 1; i >= 0 && base[i] != '/'; i-- {
		if base[i] == '.' {
			ext = base[i:]
			base = base[:i]
			break
		}
	}
	return base + ".part" + itoa(n) + ext
}
