package chronon

import (
	"fmt"
	"sync/atomic"
)

// Rings that grow. A Go unit's chunks start at firstChunk bytes and double,
// up to the block size, each time the unit fills one (a chunk sealed
// because the next event did not fit, not by a flush): a unit that emits
// a few events a second keeps a ring of a few KiB, a busy one reaches
// full blocks after a handful of chunks. Each slot of the ring gets its
// memory, or a larger one, when the producer acquires it.
//
// The tracer counts the growth of every Go ring's chunks beyond the first
// size against a budget (DefaultRingBudget, WithRingBudget). Past it a
// unit stops growing and seals its chunks at the size they have, as
// smaller blocks: nothing is dropped, the blocks are smaller (a little
// more index, a little less compression). The first-size chunks are the
// floor every active unit needs (four of firstChunk bytes) and are not
// counted: a thousand units that emitted once would otherwise hold the
// whole budget and keep the one busy unit at its smallest chunks (6 times
// the CPU, a third more file, in a review's test). An event larger than
// the slot's chunk gets the memory it needs whatever the budget.
//
// Mapped rings (C producers) keep chunks of the block size.

// firstChunk is the size of a Go unit's first chunks (the smallest block).
const firstChunk = MinBlockSize

// DefaultRingBudget is the default bound on the memory of all Go units'
// rings of a tracer beyond their first chunks: 8 MiB, the rings of 16 busy
// units with full 128 KiB chunks (four each), or of 150 with chunks of
// about 17 KiB. Each active unit also holds its four first chunks (16 KiB),
// which the budget does not count. A simulator
// with many busy units trades memory for CPU with WithRingBudget: smaller
// chunks are smaller blocks, each compressed on its own.
const DefaultRingBudget = 8 << 20

// WithRingBudget bounds the memory of all Go units' rings together beyond
// their first chunks (16 KiB a unit that has emitted), in bytes (default
// DefaultRingBudget): rings grow with their unit's rate until the sum of
// their growth reaches it, then seal their chunks at the size they have.
// 0 removes the bound: every busy unit's ring grows to its full size
// (WithRingSize). Otherwise at least 64 KiB.
func WithRingBudget(bytes int) Option {
	return func(c *config) error {
		if bytes < 0 || (bytes > 0 && bytes < 64<<10) {
			return fmt.Errorf("ring budget %d is neither 0 (no bound) nor at least 64 KiB", bytes)
		}
		c.ringBudget = bytes
		c.hasRingBudget = true
		return nil
	}
}

// ringBudget is the tracer's account of Go ring memory.
type ringBudget struct {
	limit int64        // 0: no bound
	used  atomic.Int64 // growth beyond the first chunks, what limit bounds
	total atomic.Int64 // every chunk's bytes
}

// take accounts n more bytes if they fit the budget.
func (b *ringBudget) take(n int64) bool {
	if b.limit == 0 {
		b.used.Add(n)
		return true
	}
	for {
		cur := b.used.Load()
		if cur+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// sizeSlot gives slot i the memory for the unit's next chunk, which must
// hold an event of n bytes: the unit's growth size if the budget allows,
// else what the slot has, else (no memory, or too little for the event)
// the least that holds the event, outside the budget.
func (u *Unit) sizeSlot(i uint64, n uint32) {
	r := u.ring
	have := r.slots[i].cap
	want := max(u.grow, n)
	if have >= want {
		return
	}
	base := min(firstChunk, r.chunkSize) // the floor, not counted
	counted := func(c uint32) int64 { return int64(max(c, base) - base) }
	if !u.t.rings.take(counted(want) - counted(have)) {
		if have >= n {
			return // seal smaller blocks instead of growing
		}
		want = max(n, base)
		u.t.rings.used.Add(counted(want) - counted(have))
	}
	u.t.rings.total.Add(int64(want) - int64(have))
	r.allocSlot(u.t.ringMem, i, want)
}

// grew is called when the unit seals a chunk it filled: its next chunks
// may be twice as large.
func (u *Unit) grew() {
	if u.grow < u.ring.chunkSize {
		u.grow = min(2*u.grow, u.ring.chunkSize)
	}
}
