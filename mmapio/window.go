package mmapio

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Windowed merge: the iteration's way on when the blocks that overlap the
// merge point do not fit in the memory budget (segments.go).
//
// Events are taken in windows of the merge order (cycle, block rank by
// offset, position in the block). For each window every block that can
// hold its events is decoded again, one at a time; only the events after
// the last one emitted are kept, with their arguments copied out, and no
// more than keep bytes (about a quarter of what the budget leaves after
// the decode scratch and the dump text). When the kept events outgrow that, the ones latest in merge
// order are dropped and the window ends before them (the cut): every block
// still to decode then keeps only events before the cut. Once the blocks
// are done, the kept events are exactly the next ones in merge order; they
// are merged as a segment and handed to the consumer. The window's first
// event follows the last one emitted, so windows are contiguous even
// inside one cycle.
//
// Memory (windowmem.go): allocated once when the iteration switches to
// windows and reused by every window: one block decoding (the scratch,
// for the largest block), the dump text, and an arena for the kept events
// and the share of the block being taken (at most keep bytes each, the
// cut lowering the kept ones to 3/4 of that), beside their merge buffers.
// The time: each window decodes every block overlapping it, so a block is
// decoded once per window it overlaps.

// wkey is an event's place in the merge order.
type wkey struct {
	cycle uint64
	rank  uint32
	off   uint32 // offset of the arguments in the decoded block: the position
}

func (a wkey) compare(b wkey) int {
	if c := cmp.Compare(a.cycle, b.cycle); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

var maxKey = wkey{math.MaxUint64, math.MaxUint32, math.MaxUint32}

// windowBytesPerEvent is what a kept event costs besides its arguments: its
// record, its key in the block (offs) and the merge's buffers. (A cut
// inside one cycle sorts that cycle's keys in the room of the copy.)
const windowBytesPerEvent = tracefile.RecSize + 4 + mergeBytesPerEvent

type keyCost struct {
	k wkey
	c int64
}

// windower is the state of a windowed iteration (owned by the consumer).
type windower struct {
	last    wkey    // the last event emitted (valid once started)
	started bool    // false: the next window starts at cycle from, inclusive
	from    uint64  // first cycle of the windowed part
	active  []int32 // plan indices looked at that may still hold events after last
	next    int     // first plan index not looked at yet
	done    bool
	err     error // reported after the window that ends at it
	text    int64 // reserved for the dump text while windowed

	windowMem // the decode scratch and the kept events' arena (windowmem.go)
}

// startWindows switches the pipeline to windows from the head segment on.
// No segment is dispatched: the built ones are given back, and with them
// every decoded block.
func (sp *segPipe) startWindows() {
	w := &windower{from: sp.queue[0].lo, next: sp.next}
	for _, seg := range sp.queue {
		w.active = append(w.active, seg.blocks...)
		sp.releaseSegment(seg)
	}
	slices.Sort(w.active)
	w.active = slices.Compact(w.active)
	sp.queue, sp.carried = nil, nil
	if sp.lines != nil {
		w.text = textReserve(sp.textCap)
	}
	first := int32(w.next)
	if len(w.active) > 0 {
		first = w.active[0]
	}
	dropIdle() // the blocks just given back: not reused, not counted
	w.size(sp, first)
	sp.mu.Lock()
	sp.reserve(w.text + w.scratchMax + w.arenaMax)
	sp.mu.Unlock()
	sp.win = w
}

// nextWindow returns the next window's events as a segment (nil at the end).
func (sp *segPipe) nextWindow() (*segment, error) {
	w := sp.win
	if sp.prev != nil {
		sp.releaseWindow(sp.prev)
		sp.prev = nil
	}
	if sp.stopped.Load() {
		return nil, ErrClosed
	}
	if w.done {
		return nil, nil
	}
	// Like build, the window reads the footer's index and the mapping,
	// which Close unmaps; Close waits for the window to end.
	seg, ok := sp.windowLocked()
	if !ok {
		return nil, ErrClosed
	}
	if seg == nil {
		return nil, w.err
	}
	sp.prev = seg
	return seg, seg.err
}

// window gathers, merges (and renders) the next window.
func (sp *segPipe) window() *segment {
	w := sp.win
	low := wkey{cycle: w.from}
	if w.started {
		low = w.last
	}
	f := sp.r.f
	w.active = slices.DeleteFunc(w.active, func(pi int32) bool { return f.MaxCycle(sp.plan[pi]) < low.cycle })

	var (
		kept     []*winBlock
		keptCost int64
		cut      = maxKey
		errCut   = maxKey
		werr     error
	)
	// take decodes plan entry pi and keeps its events between low and cut.
	take := func(pi int32) {
		bi := sp.plan[pi]
		b := f.At(bi)
		if !w.fits(&b) {
			sp.failAt(&cut, &errCut, &werr, sp.eMin(int(pi)), f.Errorf(tracefile.BlockSection(int(bi)), tracefile.HeaderOff(&b),
				"decoding the block takes up to %d bytes, more than the memory budget of %d bytes: raise it with --memory (mmapio.WithMemoryBudget)", w.windowNeed(&b), sp.budget))
			return
		}
		// The kept events and this block's share, at most keep bytes
		// each (windowmem.go).
		keep := w.keep
		kb, err := sp.windowBlock(pi, low, cut, keep, kept)
		var c int64
		if kb != nil {
			c = kb.windowCost()
			sp.mu.Lock()
			sp.reserve(kb.mergeCost())
			sp.mu.Unlock()
		}
		if err != nil {
			sp.failAt(&cut, &errCut, &werr, sp.eMin(int(pi)), err)
		}
		if kb == nil {
			return
		}
		if kb.cut.compare(cut) < 0 {
			cut = kb.cut // the block had more than keep bytes after low
		}
		kept = append(kept, kb)
		if keptCost += c; keptCost > keep {
			keptCost = sp.cutWindow(kept, &cut, keep*3/4)
		}
	}
	// A block whose first possible key is not before the cut has nothing
	// for this window.
	before := func(pi int32) bool {
		return wkey{sp.eMin(int(pi)), sp.r.f.Rank(sp.plan[pi]), 0}.compare(cut) < 0 && !sp.stopped.Load()
	}
	for _, pi := range w.active {
		if before(pi) {
			take(pi)
		}
	}
	for w.next < len(sp.plan) && sp.eMin(w.next) <= cut.cycle && !sp.stopped.Load() {
		pi := int32(w.next)
		w.next++
		w.active = append(w.active, pi)
		if before(pi) {
			take(pi)
		}
	}
	// Drop what lies at or past the final cut (blocks decoded before it
	// was lowered kept more).
	kept = slices.DeleteFunc(kept, func(kb *winBlock) bool {
		n := sort.Search(len(kb.Recs), func(i int) bool { return kb.key(i).compare(cut) >= 0 })
		if n == 0 {
			sp.dropWindowData(kb)
			return true
		}
		sp.shrinkWindowData(kb, n)
		return false
	})
	if cut == maxKey || cut == errCut {
		w.done = true // every event is in this window, or the rest starts at a bad block
		w.err = werr
	}
	if len(kept) == 0 {
		if sp.stopped.Load() {
			w.err = ErrClosed
		}
		w.done = true
		return nil
	}
	seg := getSegment()
	seg.window = true
	seg.wins = kept
	for _, kb := range kept {
		seg.bds = append(seg.bds, &kb.Decoded)
	}
	seg.lo, seg.last = low.cycle, true
	sp.merge(seg)
	ref := seg.refs[len(seg.refs)-1]
	w.last, w.started = seg.wins[ref>>32].key(int(uint32(ref))), true
	if w.done {
		seg.err = w.err
	}
	if sp.lines != nil {
		sp.r.renderSegment(seg, sp.lines, sp.textCap)
	}
	close(seg.done)
	return seg
}

// maxArgsBytes is the most argument bytes one event can have.
const maxArgsBytes = 1<<16 - 1

// failAt records a block that fails to decode: the window ends before its
// first event, and if no earlier cut remains, its error ends the iteration.
func (sp *segPipe) failAt(cut, errCut *wkey, werr *error, cycle uint64, err error) {
	k := wkey{cycle: cycle}
	if k.compare(*errCut) < 0 {
		*errCut, *werr = k, err
	}
	if k.compare(*cut) < 0 {
		*cut = k
	}
}

// windowBlock decodes plan entry pi and returns a copy of its selected
// events with keys in (low, cut) (from low on, inclusive, before the first
// window), at most keep bytes of them (windowCost); nil when there are
// none. kb.cut is the key of the first event it left out for lack of room.
func (sp *segPipe) windowBlock(pi int32, low, cut wkey, keep int64, kept []*winBlock) (*winBlock, error) {
	r := sp.r
	bi := sp.plan[pi]
	w := sp.win
	tmp := &w.tmp
	// ScanEvents checks each event against the footer's unit set, as
	// Decode does: a set that lies is an error, not lost events.
	b := r.f.BlockWithUnits(bi, tmp)
	sel := *sp.sel
	sel.All = false
	sel.Start = max(sel.Start, low.cycle)
	if cut != maxKey {
		sel.End = min(sel.End, cut.cycle)
	}
	// The scratch has room for as many records as the header says
	// (validated: one per 26 bytes) and for the decoded block (fits).
	// Taken from the pool once, then kept: the switch to windows emptied
	// the pool of the blocks decoded before (dropIdle), so none is kept
	// idle beside it.
	r.f.CountDecode()
	data, buf, err := r.f.BlockBytesInto(&b, &w.buf)
	if buf != nil && buf != w.buf.P { // cannot happen: bufMax holds the block
		bufpool.Put(buf)
	}
	if err != nil {
		return nil, err
	}
	w.allocRecs()
	tmp.Recs = tmp.Recs[:0]
	err = r.f.ScanEvents(&b, data, &sel, tmp)
	recs := tmp.Recs
	tmp.Recs = recs[:0]
	if int64(cap(recs)) > w.recsMax {
		tmp.Recs = nil // grown past the header's count: an error, and not reserved
	}
	if err != nil {
		return nil, err
	}
	rank := r.f.Rank(bi)
	keyOf := func(i int) wkey { return wkey{recs[i].Cycle, rank, recs[i].ArgOff} }
	// Strictly after low: before the first window low is (from, 0, 0),
	// which no event has (an event's arguments are past its header).
	a := sort.Search(len(recs), func(i int) bool { return keyOf(i).compare(low) > 0 })
	kb := &winBlock{rank: rank, cut: maxKey}
	kb.Block = bi
	var cost, args int64
	n := a
	for ; n < len(recs); n++ {
		k := keyOf(n)
		if k.compare(cut) >= 0 {
			break
		}
		c := windowBytesPerEvent + int64(recs[n].ArgLen)
		if cost+c > keep {
			kb.cut = k
			break
		}
		cost += c
		args += int64(recs[n].ArgLen)
	}
	if n == a {
		return nil, nil
	}
	w.alloc(kb, n-a, int(args), kept)
	own := kb.Data[:0]
	for i := a; i < n; i++ {
		rc := recs[i]
		kb.offs = append(kb.offs, rc.ArgOff)
		off := len(own)
		own = append(own, data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)]...)
		rc.ArgOff = uint32(off)
		kb.Recs = append(kb.Recs, rc)
	}
	kb.Data = own
	return kb, nil
}

// key is the merge-order key of kept record i of a window's block.
func (kb *winBlock) key(i int) wkey { return wkey{kb.Recs[i].Cycle, kb.rank, kb.offs[i]} }

// windowCost is what a window's block counts against keep: its events and
// arguments in the arena, its events in the merge buffers.
func (kb *winBlock) windowCost() int64 {
	return int64(len(kb.Recs))*windowBytesPerEvent + int64(len(kb.Data))
}

// mergeCost is the part of windowCost reserved for the block itself (the
// arena is reserved as a whole): its events in the merge buffers.
func (kb *winBlock) mergeCost() int64 { return int64(len(kb.Recs)) * mergeBytesPerEvent }

// releaseWindow gives back a consumed window's memory.
func (sp *segPipe) releaseWindow(seg *segment) {
	for _, kb := range seg.wins {
		sp.dropWindowData(kb)
	}
	seg.bds, seg.wins = seg.bds[:0], seg.wins[:0]
	putSegment(seg)
	sp.win.used = 0 // nothing in the arena is used any more
}

// winBlock is a window's copy of a block: the records of the events it
// keeps and their arguments, with what makes their keys.
type winBlock struct {
	tracefile.Decoded          // Block, and Recs and Data: the kept events
	rank              uint32   // the block's rank by file offset
	offs              []uint32 // each record's position in the block (its key)
	cut               wkey     // the first event left out for lack of room (maxKey: none)
	// arena: Recs, offs and Data lie in the windower's arena (windowmem.go)
	arena bool
}

// windowLocked builds the next window holding the mapping (false: Close
// has unmapped it). The lock is given back by a deferred call: a read of
// a file that shrank faults, and the panic the fault raises unwinds
// through here to the caller's recovery; a lock left held would make
// Close wait forever.
func (sp *segPipe) windowLocked() (*segment, bool) {
	if !sp.r.f.RLock() {
		return nil, false
	}
	defer sp.r.f.RUnlock()
	return sp.window(), true
}
