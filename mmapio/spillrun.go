package mmapio

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/internal/zdec"
	"github.com/chronon-sim/chronon-go/schema"
)

// A run (spill.go) is one block's selected events, from the spill's first
// cycle on, in merge order (by cycle, then position in the block), written
// to the temporary file as the format's event records: a 26-byte header
// and the arguments. What stays in memory is its checkpoints: the cycle,
// offset and number of the event at about every step bytes, at most
// maxCheckpoints of them.

// ckpt is a run's checkpoint: event idx starts at byte off of the run.
type ckpt struct {
	cycle    uint64
	off, idx uint32
}

const (
	ckptSize       = 16
	maxCheckpoints = 256
	minStep        = 256
	// spillChunk is the buffer a worker writes a run through.
	spillChunk = 256 << 10
)

// ckptReserve is what a run's checkpoints may take.
const ckptReserve = (maxCheckpoints + 2) * ckptSize

// run is one spilled block. The worker that spills it sets everything but
// lastSeg before it hands the run back (spiller.done); the consumer owns it
// afterwards.
type run struct {
	pi    int32  // plan index
	block int32  // block index
	rank  uint32 // the block's rank by file offset: the merge's tie order
	start uint64 // the first cycle it can hold (its plan entry's, or the spill's first)
	usize int64  // what its block decodes to (the footer's, kept: the spill looks ahead by it)

	off, size int64 // where the run lies in the file
	n         uint32
	first     uint64 // cycles of its first and last event (n > 0)
	last      uint64
	ck        []ckpt
	err       error // the block did not decode or the run was not written: the merge ends at start

	cost    int64         // reserved for spilling it, given back by the worker (but its scratch's)
	scratch *spillScratch // its decode scratch, kept for the next run (spill.go)
	lastSeg uint64        // the last segment that reads it (spill.go)
	ready   bool          // handed back by its worker
}

// key is event idx's place in the merge order (its cycle given).
func (r *run) key(cycle uint64, idx uint32) wkey { return wkey{cycle, r.rank, idx} }

// floor returns the last checkpoint at or before k (the first when none
// is): reading from it finds every event at or after k.
func (r *run) floor(k wkey) ckpt {
	i := r.search(k, 1)
	return r.ck[max(i-1, 0)]
}

// ceil returns the first checkpoint at or after k, or the run's end:
// every event before k lies before it.
func (r *run) ceil(k wkey) ckpt {
	if r.lastKey().compare(k) < 0 {
		return ckpt{off: uint32(r.size), idx: r.n} // the whole run is before k
	}
	i := r.search(k, 0)
	if i == len(r.ck) {
		return ckpt{off: uint32(r.size), idx: r.n}
	}
	return r.ck[i]
}

// search returns the first checkpoint whose key compares to k at least
// as past (1: after k, 0: at or after it). Written out rather than
// sort.Search with a closure: a segment's cut searches every run it
// overlaps (hundreds) several times.
func (r *run) search(k wkey, past int) int {
	lo, hi := 0, len(r.ck)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.ckCompare(&r.ck[m], k) >= past {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// ckCompare compares checkpoint p's key with k.
func (r *run) ckCompare(p *ckpt, k wkey) int {
	switch {
	case p.cycle != k.cycle:
		return cmp.Compare(p.cycle, k.cycle)
	case r.rank != k.rank:
		return cmp.Compare(r.rank, k.rank)
	}
	return cmp.Compare(p.idx, k.off)
}

// lastKey is the key of the run's last event.
func (r *run) lastKey() wkey { return r.key(r.last, r.n-1) }

// spillScratch is what a spill job decodes a block into: the records and
// a buffer of its own, both kept (and reserved) for the next run. Fresh
// ones per block of 64 MiB were 125 MiB of garbage each, which the
// collector's pacing let pile up beyond the budget (and a buffer given
// back to the pool was kept idle there, not counted).
type spillScratch struct {
	bd  tracefile.Decoded
	buf zdec.Own
}

func (sc *spillScratch) bufCap() int64 {
	if sc.buf.P == nil {
		return 0
	}
	return int64(cap(*sc.buf.P))
}

// bytes is what the scratch takes.
func (sc *spillScratch) bytes() int64 { return int64(cap(sc.bd.Recs))*tracefile.RecSize + sc.bufCap() }

// spillRun decodes run r's block (counted as a decode) and writes its
// selected events from the spill's first cycle on to the file. Its cost is
// given back before it is handed to the consumer.
func (sp *segPipe) spillRun(r *run) {
	s := sp.spill
	f := sp.r.f
	sc := r.scratch
	sel := *sp.sel
	if s.from > sel.Start && s.from > f.MinCycle(r.block) {
		sel.Start, sel.All = s.from, false // what the merge passed before the switch is not spilled
	}
	if err := sp.decodeInto(r.block, &sel, sc); err != nil {
		r.err = err
	} else if err := sp.writeRun(r, &sc.bd); err != nil {
		r.err = fmt.Errorf("%s: block %d: writing its events to the temporary file %s: %w (set TMPDIR to a directory with room, or raise the memory budget: --memory, mmapio.WithMemoryBudget)",
			f.Path(), r.block, s.file.name, err)
	}
	sc.bd = tracefile.Decoded{Recs: sc.bd.Recs[:0]}
	sp.mu.Lock()
	sp.inUse -= r.cost - sc.bytes()
	r.cost = 0
	sp.mu.Unlock()
}

// decodeInto decodes block bi into sc (its buffer, its records), selecting
// sel's events, as Decode does (the footer's unit set checked, the decode
// counted, a fault in the mapping an error).
func (sp *segPipe) decodeInto(bi int32, sel *tracefile.Selector, sc *spillScratch) (err error) {
	f := sp.r.f
	defer f.Guard(&err, tracefile.PanicOnFault())
	bd := &sc.bd
	b := f.BlockWithUnits(bi, bd)
	bd.Block = bi
	f.CountDecode()
	data, buf, err := f.BlockBytesInto(&b, &sc.buf)
	if buf != nil && buf != sc.buf.P { // cannot happen: Own grows to the block
		bufpool.Put(buf)
	}
	if err != nil {
		return err
	}
	bd.Data = data
	bd.Recs = bd.Recs[:0]
	return f.ScanEvents(&b, data, sel, bd)
}

// writeRun writes bd's records as run r and sets its checkpoints.
//
// An event is written as the block holds it (its header and arguments:
// the reader takes the same fields from both, and ignores the header's
// padding), so the events that lie one after another in the decoded
// block, a sorted block's selection, go out as one span of it: written
// straight from the block when large, else gathered through a buffer.
func (sp *segPipe) writeRun(r *run, bd *tracefile.Decoded) error {
	s := sp.spill
	recs := bd.Recs
	r.n = uint32(len(recs))
	if len(recs) == 0 {
		return nil
	}
	var size int64
	for i := range recs {
		size += schema.EventHeaderSize + int64(recs[i].ArgLen)
	}
	r.size, r.off = size, s.file.alloc(size)
	r.first, r.last = recs[0].Cycle, recs[len(recs)-1].Cycle
	step := max(minStep, (size+maxCheckpoints-1)/maxCheckpoints)
	r.ck = make([]ckpt, 0, min(int64(len(recs)), size/step+2))
	buf := bufpool.Get(spillChunk)
	defer bufpool.Put(buf)
	w := runWriter{f: s.file.f, off: r.off, out: (*buf)[:0], src: bd.Data}
	var next int64 // the next checkpoint's offset
	for i := range recs {
		rc := &recs[i]
		if pos := w.pos(); pos >= next {
			r.ck = append(r.ck, ckpt{rc.Cycle, uint32(pos), uint32(i)})
			next = pos + step
		}
		lo := int(rc.ArgOff) - schema.EventHeaderSize
		if lo != w.hi {
			if err := w.flushSpan(); err != nil {
				return err
			}
			w.lo = lo
		}
		w.hi = int(rc.ArgOff) + int(rc.ArgLen)
	}
	if err := w.flushSpan(); err != nil {
		return err
	}
	return w.flush()
}

// runWriter writes a run: spans of the decoded block src, [lo, hi) the
// one pending, through out.
type runWriter struct {
	f      io.WriterAt
	off    int64 // the run's offset in the file
	at     int64 // bytes of the run written before out
	out    []byte
	src    []byte
	lo, hi int
}

// pos is the run's bytes so far, the pending span's included.
func (w *runWriter) pos() int64 { return w.at + int64(len(w.out)) + int64(w.hi-w.lo) }

// flushSpan moves the pending span on: into out when small, else written
// from the block itself after what out holds.
func (w *runWriter) flushSpan() error {
	span := w.src[w.lo:w.hi]
	w.lo = w.hi
	if len(span) == 0 {
		return nil
	}
	if len(w.out)+len(span) > cap(w.out) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if len(span) <= cap(w.out)/4 {
		w.out = append(w.out, span...)
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(span, w.off+w.at); err != nil {
		return err
	}
	w.at += int64(len(span))
	return nil
}

// flush writes out.
func (w *runWriter) flush() error {
	if len(w.out) == 0 {
		return nil
	}
	if _, err := w.f.WriteAt(w.out, w.off+w.at); err != nil {
		return err
	}
	w.at += int64(len(w.out))
	w.out = w.out[:0]
	return nil
}

// spillRead is the part of a run a spilled segment reads: bytes [off, end)
// of the run, from its event idx on.
type spillRead struct {
	r        *run
	off, end uint32
	idx      uint32
	events   uint32 // events in [off, end): the records it may take
}

// readSpilled reads the parts of a spilled segment back and keeps, of
// each, the events in [seg.from, seg.to) as a decoded block of the run's
// block (its records' positions are their places in the run).
func (sp *segPipe) readSpilled(seg *segment) error {
	var total, events int
	for i := range seg.reads {
		total += int(seg.reads[i].end - seg.reads[i].off)
		events += int(seg.reads[i].events)
	}
	seg.rbuf = bufpool.Get(total)
	data := (*seg.rbuf)[:total]
	if cap(seg.recs) < events {
		seg.recs = make([]tracefile.Rec, 0, events)
	}
	recs := seg.recs[:0]
	if cap(seg.parts) < len(seg.reads) {
		seg.parts = make([]tracefile.Decoded, 0, len(seg.reads))
	}
	parts := seg.parts[:0]
	le := binary.LittleEndian
	at := 0
	for i := range seg.reads {
		rd := &seg.reads[i]
		r := rd.r
		b := data[at : at+int(rd.end-rd.off)]
		at += len(b)
		if _, err := sp.spill.file.f.ReadAt(b, r.off+int64(rd.off)); err != nil {
			return fmt.Errorf("%s: block %d: reading its events back from the temporary file %s: %w", sp.r.f.Path(), r.block, sp.spill.file.name, err)
		}
		first := len(recs)
		idx := rd.idx
		// The run's event (c, idx) is at or after seg.from when c is past
		// its cycle or, at it, idx is at least fromIdx; before seg.to
		// likewise (the keys compared without building them: every event
		// of the segment is).
		fromIdx, toIdx := r.idxFrom(seg.from), r.idxFrom(seg.to)
		for p := 0; p < len(b); idx++ {
			if len(b)-p < schema.EventHeaderSize || len(recs) == cap(recs) {
				return sp.spill.corrupt(r, rd, p)
			}
			e := b[p : p+schema.EventHeaderSize]
			n := schema.EventHeaderSize + int(le.Uint16(e))
			if n > len(b)-p {
				return sp.spill.corrupt(r, rd, p)
			}
			c := le.Uint64(e[2:])
			if (c > seg.from.cycle || c == seg.from.cycle && uint64(idx) >= fromIdx) &&
				(c < seg.to.cycle || c == seg.to.cycle && uint64(idx) < toIdx) {
				recs = append(recs, tracefile.Rec{Cycle: c, Fid: le.Uint32(e[10:]), Cat: le.Uint32(e[14:]),
					ArgOff: uint32(p + schema.EventHeaderSize), ArgLen: le.Uint16(e), Unit: le.Uint16(e[18:]), Argc: e[20]})
			}
			p += n
		}
		if len(recs) > first {
			parts = append(parts, tracefile.Decoded{Block: r.block, Data: b, Recs: recs[first:len(recs):len(recs)]})
		}
	}
	seg.recs, seg.parts = recs, parts
	for i := range parts {
		seg.bds = append(seg.bds, &parts[i])
	}
	return nil
}

// idxFrom is the first index at which the run's events of k's cycle are at
// or after k in merge order (past every index: none is).
func (r *run) idxFrom(k wkey) uint64 {
	switch {
	case r.rank > k.rank:
		return 0
	case r.rank < k.rank:
		return math.MaxUint64
	}
	return uint64(k.off)
}
