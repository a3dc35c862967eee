package mmapio

import (
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/internal/zdec"
)

// The memory of a windowed iteration (window.go) is allocated once, when
// the iteration switches to windows, and reused by every window: a buffer
// the blocks are decoded into, their records, and an arena the kept events
// are copied into. Allocating them afresh for every block of every window
// (a 64 MiB buffer, a 61 MiB record array, the kept copies and the copies
// a cut made) was garbage the collector's pacing let pile up: a dump with
// the default budget of 256 MiB peaked at 392 MiB RSS while 139 MiB were
// accounted. Now what is reserved is what is live, and a window allocates
// nothing of its size.
//
// The budget is split once: the dump text (textReserve), the decode
// scratch (sized for the largest block of the rest of the plan that fits),
// and the rest, R. The cut keeps the events kept so far and the share of
// the block being taken at most keep bytes each (windowCost); the arena
// holds both (2 keep: an event takes less there than its windowCost).
// Their events' merge buffers (mergeCost, reserved per block) and the
// scratch of a cut inside a cycle (cutInCycle) take at most
// windowExtraPerEvent bytes per event of those 2 keep; R holds it all:
// keep = R * windowBytesPerEvent / (2*windowBytesPerEvent + 2*windowExtraPerEvent).
// A cut shortens the kept blocks in place; their tails are reclaimed by
// compacting the arena when a share does not fit at its end.

// windowExtraPerEvent is what a kept event takes besides the arena.
const windowExtraPerEvent = mergeBytesPerEvent + int64(unsafe.Sizeof(keyCost{}))

// keepOf is keep for r bytes of arena, merge buffers and cut scratch.
func keepOf(r int64) int64 {
	return r / (2*windowBytesPerEvent + 2*windowExtraPerEvent) * windowBytesPerEvent
}

// recSize is the size of a record; the arena holds records at 8-byte
// aligned offsets.
const recSize = tracefile.RecSize

var _ = [1]struct{}{}[recSize%8] // records tile 8-byte words

type windowMem struct {
	keep       int64 // most bytes of kept events, and of one block's share (windowCost)
	scratchMax int64 // reserved for the decode scratch
	arenaMax   int64 // reserved for the arena
	bufMax     int64 // the scratch's buffer (a size class; 0: raw blocks only)
	recsMax    int64 // the scratch's records

	buf   zdec.Own          // decode buffer, taken at the first block that decodes
	tmp   tracefile.Decoded // its records, allocated at the first block that decodes
	arena []uint64          // kept events: records, positions, arguments
	used  int               // bytes of the arena in use, from its start
}

// bufNeed is the decode buffer block b needs (0 for a raw block, read in
// the mapping).
func bufNeed(b *Block) int64 {
	if u := int(b.UncompressedSize); !tracefile.IsRaw(b) && u > 0 {
		return 1 << bufpool.Class(u)
	}
	return 0
}

// scratchNeed is what decoding block b takes: its buffer and records.
func scratchNeed(b *Block) int64 { return bufNeed(b) + int64(b.EventCount)*recSize }

// minWindowReserve is what the windows need besides the scratch: room to
// keep at least one event of the largest size.
func minWindowReserve() int64 {
	minKeep := int64(windowBytesPerEvent + maxArgsBytes)
	return (minKeep/windowBytesPerEvent + 1) * (2*windowBytesPerEvent + 2*windowExtraPerEvent)
}

// windowNeed is the whole budget a window taking block b needs: the dump
// text's reserve, b's scratch and the kept events' minimum (what the
// refusal of a block too large for the budget states).
func (w *windower) windowNeed(b *Block) int64 { return w.text + scratchNeed(b) + minWindowReserve() }

// size splits the budget for the windows over plan entries first on: the
// scratch fits every block whose decoding leaves room for windows of at
// least one event of the largest size (the others fail when taken).
func (w *windower) size(sp *segPipe, first int32) {
	// The most the scratch can take: what leaves keepOf at least minKeep.
	limit := sp.budget - w.text - minWindowReserve()
	for pi := int(first); pi < len(sp.plan); pi++ {
		b := sp.r.f.At(sp.plan[pi])
		if scratchNeed(&b) <= limit {
			w.bufMax, w.recsMax = max(w.bufMax, bufNeed(&b)), max(w.recsMax, int64(b.EventCount))
		}
	}
	if w.bufMax+w.recsMax*recSize > limit {
		// The largest buffer and the most records are two blocks' needs,
		// together too many: the records are bounded (a block with more
		// fails when taken).
		w.recsMax = max(0, (limit-w.bufMax)/recSize)
	}
	w.scratchMax = w.bufMax + w.recsMax*recSize
	w.keep = keepOf(sp.budget - w.text - w.scratchMax)
	w.arenaMax = 2 * w.keep &^ 7
	w.buf.Size = int(w.bufMax)
}

// fits reports whether block b decodes in the scratch.
func (w *windowMem) fits(b *Block) bool {
	return bufNeed(b) <= w.bufMax && int64(b.EventCount) <= w.recsMax
}

// allocRecs allocates the scratch's records at their reserved size, once
// a block decoded: the records are backed by its bytes (one per 26), not
// only declared.
func (w *windowMem) allocRecs() {
	if w.tmp.Recs == nil {
		w.tmp.Recs = make([]tracefile.Rec, 0, w.recsMax)
	}
}

func (w *windowMem) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.arena))), len(w.arena)*8)
}

func round8(n int) int { return (n + 7) &^ 7 }

// arenaBytes is what a block's share of n events and args argument bytes
// takes in the arena.
func arenaBytes(n, args int) int { return n*int(recSize) + round8(4*n) + round8(args) }

// alloc gives kb empty records, positions and arguments with room for n
// events and args bytes, at the end of the arena; kept are the blocks in
// it (in arena order), compacted when the share does not fit after them.
// The share and the kept events are at most keep each, which the arena
// holds twice; should it not fit anyway, the share is allocated apart.
func (w *windowMem) alloc(kb *winBlock, n, args int, kept []*winBlock) {
	need := arenaBytes(n, args)
	if w.arena == nil {
		w.arena = make([]uint64, w.arenaMax/8)
	}
	if w.used+need > len(w.arena)*8 {
		w.compact(kept)
	}
	if w.used+need > len(w.arena)*8 {
		kb.Recs, kb.offs, kb.Data = make([]tracefile.Rec, 0, n), make([]uint32, 0, n), make([]byte, 0, args)
		return
	}
	kb.arena = true
	ab := w.bytes()
	kb.Recs = unsafe.Slice((*tracefile.Rec)(unsafe.Pointer(&ab[w.used])), n)[:0]
	w.used += n * int(recSize)
	kb.offs = unsafe.Slice((*uint32)(unsafe.Pointer(&ab[w.used])), n)[:0]
	w.used += round8(4 * n)
	kb.Data = ab[w.used : w.used : w.used+args]
	w.used += round8(args)
}

// compact moves the kept blocks' records, positions and arguments to the
// start of the arena, in order, dropping what cuts left behind them.
func (w *windowMem) compact(kept []*winBlock) {
	ab := w.bytes()
	at := 0
	for _, kb := range kept {
		if !kb.arena {
			continue
		}
		n := len(kb.Recs)
		if n == 0 { // cut away: the window drops it
			kb.Recs, kb.offs, kb.Data, kb.arena = nil, nil, nil, false
			continue
		}
		copy(ab[at:], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(kb.Recs))), n*int(recSize)))
		kb.Recs = unsafe.Slice((*tracefile.Rec)(unsafe.Pointer(&ab[at])), n)[:n:n]
		at += n * int(recSize)
		copy(ab[at:], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(kb.offs))), 4*n))
		kb.offs = unsafe.Slice((*uint32)(unsafe.Pointer(&ab[at])), n)[:n:n]
		at += round8(4 * n)
		m := len(kb.Data)
		copy(ab[at:], kb.Data)
		kb.Data = ab[at : at+m : at+m]
		at += round8(m)
	}
	w.used = at
}
