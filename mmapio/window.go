package mmapio

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
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
const windowBytesPerEvent = int64(unsafe.Sizeof(rec{})) + 4 + mergeBytesPerEvent

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
	if !sp.r.rlockMap() {
		return nil, ErrClosed
	}
	seg := sp.window()
	sp.r.mapMu.RUnlock()
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
	blocks := &sp.r.blocks
	w.active = slices.DeleteFunc(w.active, func(pi int32) bool { return blocks.maxCycle(sp.plan[pi]) < low.cycle })

	var (
		kept     []*blockData
		keptCost int64
		cut      = maxKey
		errCut   = maxKey
		werr     error
	)
	// take decodes plan entry pi and keeps its events between low and cut.
	take := func(pi int32) {
		bi := sp.plan[pi]
		b := blocks.at(bi)
		if !w.fits(&b) {
			sp.failAt(&cut, &errCut, &werr, sp.eMin(int(pi)), formatErr(sp.r.path, blockSection(int(bi)), headerOff(&b),
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
		if kb.win.cut.compare(cut) < 0 {
			cut = kb.win.cut // the block had more than keep bytes after low
		}
		kept = append(kept, kb)
		if keptCost += c; keptCost > keep {
			keptCost = sp.cutWindow(kept, &cut, keep*3/4)
		}
	}
	// A block whose first possible key is not before the cut has nothing
	// for this window.
	before := func(pi int32) bool {
		return wkey{sp.eMin(int(pi)), sp.r.rankOf(sp.plan[pi]), 0}.compare(cut) < 0 && !sp.stopped.Load()
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
	kept = slices.DeleteFunc(kept, func(kb *blockData) bool {
		n := sort.Search(len(kb.recs), func(i int) bool { return kb.key(i).compare(cut) >= 0 })
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
	seg.bds = kept
	seg.lo, seg.last = low.cycle, true
	sp.merge(seg)
	ref := seg.refs[len(seg.refs)-1]
	w.last, w.started = seg.bds[ref>>32].key(int(uint32(ref))), true
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
func (sp *segPipe) windowBlock(pi int32, low, cut wkey, keep int64, kept []*blockData) (*blockData, error) {
	r := sp.r
	bi := sp.plan[pi]
	b := r.blocks.at(bi)
	w := sp.win
	tmp := &w.tmp
	// scanEvents checks each event against the footer's unit set, as
	// decodeBlock does: a set that lies is an error, not lost events.
	b.Units, _ = r.blocks.units(bi, tmp.units)
	if r.blocks.fx != nil && b.Units != nil {
		tmp.units = b.Units // keep the grown scratch (never a recovered table's own list)
	}
	sel := *sp.sel
	sel.all = false
	sel.start = max(sel.start, low.cycle)
	if cut != maxKey {
		sel.end = min(sel.end, cut.cycle)
	}
	// The scratch has room for as many records as the header says
	// (validated: one per 26 bytes) and for the decoded block (fits).
	// From the pool: the buffer of a block the iteration decoded before it
	// switched to windows is reused, not kept idle beside.
	r.decodes.Add(1)
	data, buf, err := r.blockBytesInto(&b, &w.buf)
	if buf != nil && buf != w.buf.P { // cannot happen: bufMax holds the block
		bufpool.Put(buf)
	}
	if err != nil {
		return nil, err
	}
	w.allocRecs()
	tmp.recs = tmp.recs[:0]
	err = r.scanEvents(&b, data, &sel, tmp)
	recs := tmp.recs
	tmp.recs = recs[:0]
	if int64(cap(recs)) > w.recsMax {
		tmp.recs = nil // grown past the header's count: an error, and not reserved
	}
	if err != nil {
		return nil, err
	}
	rank := r.rankOf(bi)
	keyOf := func(i int) wkey { return wkey{recs[i].cycle, rank, recs[i].argOff} }
	// Strictly after low: before the first window low is (from, 0, 0),
	// which no event has (an event's arguments are past its header).
	a := sort.Search(len(recs), func(i int) bool { return keyOf(i).compare(low) > 0 })
	kb := &blockData{block: bi, win: &windowData{rank: rank, cut: maxKey}}
	var cost, args int64
	n := a
	for ; n < len(recs); n++ {
		k := keyOf(n)
		if k.compare(cut) >= 0 {
			break
		}
		c := windowBytesPerEvent + int64(recs[n].argLen)
		if cost+c > keep {
			kb.win.cut = k
			break
		}
		cost += c
		args += int64(recs[n].argLen)
	}
	if n == a {
		return nil, nil
	}
	w.alloc(kb, n-a, int(args), kept)
	own := kb.data[:0]
	for i := a; i < n; i++ {
		rc := recs[i]
		kb.win.offs = append(kb.win.offs, rc.argOff)
		off := len(own)
		own = append(own, data[rc.argOff:rc.argOff+uint32(rc.argLen)]...)
		rc.argOff = uint32(off)
		kb.recs = append(kb.recs, rc)
	}
	kb.data = own
	return kb, nil
}

// key is the merge-order key of kept record i of a window's block.
func (bd *blockData) key(i int) wkey { return wkey{bd.recs[i].cycle, bd.win.rank, bd.win.offs[i]} }

// windowCost is what a window's block counts against keep: its events and
// arguments in the arena, its events in the merge buffers.
func (bd *blockData) windowCost() int64 {
	return int64(len(bd.recs))*windowBytesPerEvent + int64(len(bd.data))
}

// mergeCost is the part of windowCost reserved for the block itself (the
// arena is reserved as a whole): its events in the merge buffers.
func (bd *blockData) mergeCost() int64 { return int64(len(bd.recs)) * mergeBytesPerEvent }

// releaseWindow gives back a consumed window's memory.
func (sp *segPipe) releaseWindow(seg *segment) {
	for _, kb := range seg.bds {
		sp.dropWindowData(kb)
	}
	seg.bds = seg.bds[:0]
	putSegment(seg)
	sp.win.used = 0 // nothing in the arena is used any more
}

// windowData is what a window's copy of a block keeps besides records.
type windowData struct {
	rank uint32   // the block's rank by file offset
	offs []uint32 // each record's position in the block (its key)
	cut  wkey     // the first event left out for lack of room (maxKey: none)
	// arena: recs, offs and data lie in the windower's arena (windowmem.go)
	arena bool
}
