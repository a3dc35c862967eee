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
// The tracer counts the bytes of every Go ring's chunks against a budget
// (DefaultRingBudget, WithRingBudget). Past it a unit stops growing and
// seals its chunks at the size they have, as smaller blocks: nothing is
// dropped, the blocks are smaller (a little more index, a little less
// compression). A slot that has no memory yet, or less than one event
// needs, gets it whatever the budget, so the budget is exceeded by at most
// a small chunk per slot.
//
// Mapped rings (C producers) keep chunks of the block size.

// firstChunk is the size of a Go unit's first chunks (the smallest block).
const firstChunk = MinBlockSize

// DefaultRingBudget is the default bound on the memory of all Go units'
// rings of a tracer: 8 MiB, the rings of 16 busy units with full 128 KiB
// chunks (four each), or of 150 with chunks of about 13 KiB. A simulator
// with many busy units trades memory for CPU with WithRingBudget: smaller
// chunks are smaller blocks, each compressed on its own.
const DefaultRingBudget = 8 << 20

// WithRingBudget bounds the memory of all Go units' rings together, in
// bytes (default DefaultRingBudget): rings grow with their unit's rate
// until the sum reaches it, then seal their chunks at the size they have.
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
	limit int64 // 0: no bound
	used  atomic.Int64
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
	if !u.t.rings.take(int64(want) - int64(have)) {
		if have >= n {
			return // seal smaller blocks instead of growing
		}
		want = max(n, min(firstChunk, r.chunkSize))
		u.t.rings.used.Add(int64(want) - int64(have))
	}
	r.allocSlot(i, want)
}

// grew is called when the unit seals a chunk it filled: its next chunks
// may be twice as large.
func (u *Unit) grew() {
	if u.grow < u.ring.chunkSize {
		u.grow = min(2*u.grow, u.ring.chunkSize)
	}
}
