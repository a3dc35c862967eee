package export

import (
	"bufio"
	"fmt"
	"github.com/chronon-sim/chronon-go/internal/argview"
	"math"
	"os"
	"strconv"

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
	tmp   []byte
	names internTable // event names
	anns  internTable // debug annotation names
}

const sequenceID = 1

// internTable gives strings interning ids (equal strings, equal ids).
type internTable struct {
	iid  map[string]uint64
	next uint64
}

func (t *internTable) id(s string) uint64 {
	if t.iid == nil {
		t.iid, t.next = map[string]uint64{}, 1
	}
	id, ok := t.iid[s]
	if !ok {
		id = t.next
		t.next++
		t.iid[s] = id
	}
	return id
}

// intern gives a format its ids the first time the sink sees it; from then
// on the hot path reads them from the format.
func (s *perfettoSink) intern(f *fmtInfo) {
	if f.nameIID != 0 {
		return
	}
	f.nameIID = s.names.id(f.name)
	f.annIIDs = make([]uint64, len(f.names))
	f.annGens = make([]uint32, len(f.names))
	for i, n := range f.names {
		f.annIIDs[i] = s.anns.id(n)
	}
}

func newPerfettoSink(path string) (*perfettoSink, error) {
	s := &perfettoSink{gen: 1, pkt: make([]byte, pktReserve, 4096)}
	var err error
	if s.out, err = newSplitFile(path); err != nil {
		return nil, err
	}
	return s, s.startFile()
}

// startFile writes the packet that clears the sequence's incremental state.
func (s *perfettoSink) startFile() error {
	p := s.pkt[:pktReserve]
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	p = protowire.AppendTag(p, fPacketSequenceFlags, protowire.VarintType)
	p = protowire.AppendVarint(p, seqIncrementalStateCleared)
	p = protowire.AppendTag(p, fPacketFirstOnSeq, protowire.VarintType)
	p = protowire.AppendVarint(p, 1)
	s.pkt = p
	return s.writePacket(p)
}

// Packets are built after pktReserve spare bytes, so that the Trace field
// header (tag and length) goes in front without a copy and each packet is
// one write.
const pktReserve = 8

func (s *perfettoSink) writePacket(p []byte) error {
	n := len(p) - pktReserve
	var hdr [pktReserve]byte
	h := protowire.AppendTag(hdr[:0], fTracePacket, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(n))
	start := pktReserve - len(h)
	copy(p[start:], h)
	return s.out.write(p[start:])
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
	if t.parent == nil && t.pid > 1 { // a process of WithProcesses
		var pd []byte
		pd = protowire.AppendTag(pd, fProcessPid, protowire.VarintType)
		pd = protowire.AppendVarint(pd, uint64(t.pid))
		pd = protowire.AppendTag(pd, fProcessName, protowire.BytesType)
		pd = protowire.AppendString(pd, t.name)
		d = protowire.AppendTag(d, fTrackProcess, protowire.BytesType)
		d = protowire.AppendBytes(d, pd)
	}
	if t.counter {
		d = protowire.AppendTag(d, fTrackCounter, protowire.BytesType)
		d = protowire.AppendVarint(d, 0) // an empty CounterDescriptor
	} else {
		d = protowire.AppendTag(d, fTrackChildOrdering, protowire.VarintType)
		d = protowire.AppendVarint(d, childOrderingExplicit)
	}
	s.tmp = d
	p := s.pkt[:pktReserve]
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	p = protowire.AppendTag(p, fPacketTrackDesc, protowire.BytesType)
	p = protowire.AppendBytes(p, d)
	s.pkt = p
	return s.writePacket(p)
}

// packet starts an event packet at ns; interned names not yet emitted in
// this file go into its interned_data. It returns the packet so far and
// opens its track_event field (closed by finishEvent).
func (s *perfettoSink) packet(ns uint64, f *fmtInfo, v *argview.View) []byte {
	p := s.pkt[:pktReserve]
	p = appendUintField(p, fPacketTimestamp, ns)
	p = appendUintField(p, fPacketSequenceID, sequenceID)
	p = appendUintField(p, fPacketSequenceFlags, seqNeedsIncrementalState)
	if f == nil {
		return p
	}
	s.intern(f)
	fresh := f.nameGen != s.gen
	if !fresh && v != nil {
		for _, i := range f.plain {
			if !v.Has(i) {
				break
			}
			if f.annGens[i] != s.gen {
				fresh = true
				break
			}
		}
	}
	if !fresh {
		return p
	}
	p, at := beginMsg(p, fPacketInternedData)
	if f.nameGen != s.gen {
		f.nameGen = s.gen
		p = appendInterned(p, fInternedEventNames, f.nameIID, f.name)
	}
	if v != nil {
		for _, i := range f.plain {
			if !v.Has(i) {
				break
			}
			if f.annGens[i] != s.gen {
				f.annGens[i] = s.gen
				p = appendInterned(p, fInternedAnnotationName, f.annIIDs[i], f.names[i])
			}
		}
	}
	return endMsg(p, at)
}

func appendInterned(d []byte, field protowire.Number, iid uint64, name string) []byte {
	d, at := beginMsg(d, field)
	d = appendUintField(d, fInternedIID, iid)
	d = appendTag(d, fInternedStr, protowire.BytesType)
	d = appendVarint(d, uint64(len(name)))
	d = append(d, name...)
	return endMsg(d, at)
}

// eventHead opens the track_event field and writes its type, track and name.
func eventHead(p []byte, typ uint64, t *track, f *fmtInfo) ([]byte, int) {
	p, at := beginMsg(p, fPacketTrackEvent)
	p = appendUintField(p, fEventType, typ)
	p = appendUintField(p, fEventTrackUUID, t.uuid)
	if f != nil {
		p = appendUintField(p, fEventNameIID, f.nameIID)
	}
	return p, at
}

// finishEvent closes the track_event field and writes the packet.
func (s *perfettoSink) finishEvent(p []byte, at int) error {
	p = endMsg(p, at)
	s.pkt = p
	return s.writePacket(p)
}

func annotations(p []byte, f *fmtInfo, v *argview.View, flow uint64, lk *links) []byte {
	if v != nil {
		for _, i := range f.plain {
			if !v.Has(i) {
				break
			}
			var at int
			p, at = beginMsg(p, fEventDebugAnnotations)
			p = appendUintField(p, fAnnNameIID, f.annIIDs[i])
			p = appendAnnValue(p, f, v, i)
			p = endMsg(p, at)
		}
	}
	if flow != 0 {
		p = appendTag(p, fEventFlowIDs, protowire.Fixed64Type)
		p = protowire.AppendFixed64(p, flow)
	}
	if lk != nil {
		// The arrows to the span's children start here; the one from its
		// parent ends here (trees.go).
		for k := lk.from; k < lk.to; k++ {
			if id := edgeFlow(lk.node, k); id != 0 {
				p = appendTag(p, fEventFlowIDs, protowire.Fixed64Type)
				p = protowire.AppendFixed64(p, id)
			}
		}
		if lk.in != 0 {
			p = appendTag(p, fEventTerminatingFlowIDs, protowire.Fixed64Type)
			p = protowire.AppendFixed64(p, lk.in)
		}
	}
	return p
}

// appendAnnValue encodes argument i as a typed debug annotation value.
// Hex-formatted integers ({:x}) become pointer values, which viewers show in
// hex, as the format asked; symbols their string.
func appendAnnValue(b []byte, f *fmtInfo, v *argview.View, i int) []byte {
	t := v.Types[i]
	switch {
	case f.anySym && f.syms[i]:
		str := f.symbol(v, i)
		b = appendTag(b, fAnnString, protowire.BytesType)
		b = appendVarint(b, uint64(len(str)))
		return append(b, str...)
	case t == schema.ArgString:
		str := v.Str(i)
		b = appendTag(b, fAnnString, protowire.BytesType)
		b = appendVarint(b, uint64(len(str)))
		return append(b, str...)
	case t == schema.ArgBool:
		return appendUintField(b, fAnnBool, boolBit(v.Uint(i)))
	case isFloat(t):
		b = appendTag(b, fAnnDouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.Float(i)))
	case t == schema.ArgPointer || f.hex(i):
		return appendUintField(b, fAnnPointer, v.HexValue(i))
	case isSigned(t):
		return appendUintField(b, fAnnInt, v.Uint(i))
	default:
		return appendUintField(b, fAnnUint, v.Uint(i))
	}
}

func boolBit(v uint64) uint64 {
	if v != 0 {
		return 1
	}
	return 0
}

func (s *perfettoSink) begin(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error {
	p, at := eventHead(s.packet(ns, f, v), typeSliceBegin, t, f)
	return s.finishEvent(annotations(p, f, v, flow, lk), at)
}

// end closes t's slice; the arguments of an end event (f, v) are added to
// the slice's (trace processor merges an end's debug annotations into its
// slice).
func (s *perfettoSink) end(ns uint64, t *track, f *fmtInfo, v *argview.View) error {
	if f == nil || v == nil || len(f.plain) == 0 || !v.Has(f.plain[0]) {
		p, at := eventHead(s.packet(ns, nil, nil), typeSliceEnd, t, nil)
		return s.finishEvent(p, at)
	}
	p, at := eventHead(s.packet(ns, f, v), typeSliceEnd, t, nil)
	return s.finishEvent(annotations(p, f, v, 0, nil), at)
}

func (s *perfettoSink) instant(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error {
	p, at := eventHead(s.packet(ns, f, v), typeInstant, t, f)
	return s.finishEvent(annotations(p, f, v, flow, lk), at)
}

func (s *perfettoSink) counter(ns uint64, t *track, f *fmtInfo, v *argview.View) error {
	p, at := eventHead(s.packet(ns, nil, nil), typeCounter, t, nil)
	switch {
	case !v.Has(f.value):
		p = appendUintField(p, fEventCounterValue, 0)
	case isFloat(v.Types[f.value]):
		p = appendTag(p, fEventDoubleCounter, protowire.Fixed64Type)
		p = protowire.AppendFixed64(p, math.Float64bits(v.Float(f.value)))
	default:
		p = appendUintField(p, fEventCounterValue, v.Uint(f.value))
	}
	return s.finishEvent(p, at)
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
	// One buffer for every part: a fresh 1 MiB buffer per part made
	// 4,228 parts of 1000 bytes take 20 s.
	if s.w == nil {
		s.w = bufio.NewWriterSize(f, 1<<20)
	} else {
		s.w.Reset(f)
	}
	s.f, s.n = f, 0
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
	return base + ".part" + strconv.Itoa(n) + ext
}
