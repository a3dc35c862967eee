package mmapio

import (
	"iter"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Iterator walks the events a query selects in cycle order (ties in file
// order: by block offset, then position in the block).
//
//	it := r.Iter(q)
//	defer it.Close()
//	for it.Next() {
//		ev := it.Event()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
//
// Blocks are decoded and merged ahead of the caller on background
// goroutines; Close (or reaching the end) stops them.
type Iterator struct {
	r       *Reader
	sp      *segPipe
	seg     *segment
	i       int
	ev      Event
	err     error
	pending error // error to report once the current segment is used up
	done    bool
}

// Iter starts an iteration over the events q selects.
func (r *Reader) Iter(q Query) *Iterator {
	it := &Iterator{r: r}
	sp, err := r.startQuery(q, nil)
	if err != nil {
		it.err, it.done = err, true
		return it
	}
	if sp == nil {
		it.done = true
		return it
	}
	it.sp = sp
	return it
}

// Next advances to the next event and reports whether there is one.
func (it *Iterator) Next() bool {
	for it.seg == nil || it.i >= len(it.seg.refs) {
		if !it.nextSegment() {
			return false
		}
	}
	if it.sp.stopped.Load() { // the Reader was closed under the iteration
		it.err = ErrClosed
		it.Close()
		return false
	}
	it.ev = it.r.eventAt(it.seg, it.seg.refs[it.i])
	it.i++
	return true
}

func (it *Iterator) nextSegment() (ok bool) {
	defer it.guardFault(panicOnFault()) // the plan is read from the mapped footer
	if it.done {
		return false
	}
	if it.pending != nil { // the last segment ended at a failure
		it.err = it.pending
		it.r.setErr(it.pending)
		it.Close()
		return false
	}
	seg, err := it.sp.nextSegment()
	if seg == nil {
		if err != nil {
			it.err = err
			it.r.setErr(err)
		}
		it.Close()
		return false
	}
	it.seg, it.i, it.pending = seg, 0, err
	return true
}

// Event returns the current event. Its arguments are valid until the next
// call to Next (see the package documentation); Clone the event to keep it.
func (it *Iterator) Event() Event { return it.ev }

// index returns the position of the current event among the events of its
// block (Event().Block) that the query selects: its record's index in the
// block decoded for the same query. It is -1 when the iteration took the
// event from a windowed or spilled merge (a memory budget too small to
// hold the blocks that overlap the merge point), whose blocks are cut.
func (it *Iterator) index() int {
	if it.seg == nil || it.i == 0 || it.seg.window || it.seg.spilled {
		return -1
	}
	return int(uint32(it.seg.refs[it.i-1]))
}

// Err returns the error that ended the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// Close stops the iteration and its background decoding. It is safe to call
// more than once; Next returns false afterwards.
func (it *Iterator) Close() {
	it.done = true
	it.seg = nil
	if it.sp != nil {
		it.sp.stop()
		it.sp = nil
	}
}

// Events returns the events q selects, in cycle order, as a range function:
//
//	for ev := range r.Events(q) { ... }
//	if err := r.Err(); err != nil { ... }
//
// Iteration stops at the first block that does not decode; the error is
// then reported by r.Err. Breaking out of the loop stops background
// decoding. See Iterator.Event for how long an event's arguments live.
func (r *Reader) Events(q Query) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		it := r.Iter(q)
		defer it.Close()
		if it.err != nil {
			r.setErr(it.err)
			return
		}
		for it.nextSegment() {
			seg, sp := it.seg, it.sp
			for _, ref := range seg.refs {
				if sp.stopped.Load() { // the Reader was closed in the loop
					r.setErr(ErrClosed)
					return
				}
				if !yield(r.eventAt(seg, ref)) {
					return
				}
			}
		}
	}
}

// eventAt builds the event of ref in seg. (eventOf, written out: the
// iteration's inner loop.)
func (r *Reader) eventAt(seg *segment, ref uint64) Event {
	bd := seg.bds[ref>>32]
	rc := &bd.Recs[uint32(ref)]
	return Event{
		Cycle:    rc.Cycle,
		FormatID: rc.Fid,
		Category: rc.Cat,
		UnitID:   rc.Unit,
		ArgCount: rc.Argc,
		Block:    bd.Block,
		args:     bd.Data[rc.ArgOff : rc.ArgOff+uint32(rc.ArgLen) : rc.ArgOff+uint32(rc.ArgLen)],
		format:   r.Format(rc.Fid),
	}
}

// eventOf builds the event of record rc of block bd.
func (r *Reader) eventOf(bd *tracefile.Decoded, rc *tracefile.Rec) Event {
	return Event{
		Cycle:    rc.Cycle,
		FormatID: rc.Fid,
		Category: rc.Cat,
		UnitID:   rc.Unit,
		ArgCount: rc.Argc,
		Block:    bd.Block,
		args:     bd.Args(rc),
		format:   r.Format(rc.Fid),
	}
}
