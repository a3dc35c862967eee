package main

import (
	"fmt"
	"sync"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// diff holds, per side, the blocks decoded ahead (and the one being cut)
// and the chunks of its units not compared yet: where the runs' units
// overlap in cycles, one side's events wait in memory for the other's.
// Each side's holding is charged against its budget (--memory, one per
// file): decoding ahead takes the block's bytes first, waiting while the
// side is full; when what the side holds is all pending (nothing more
// can be compared before its next block, which does not fit), the runs
// cannot be compared within the budget and diff stops with an error
// rather than grow without bound. Charges are the buffers' capacities.

// sideMem is one side's account.
type sideMem struct {
	mu      sync.Mutex
	cond    sync.Cond
	budget  int64
	used    int64 // charged: blocks decoding or decoded ahead, chunks in transit, pending chunks
	pend    int64 // of used, the chunks pending in the comparer
	waiting bool  // the decoder waits for room
	need    int64 // for that many bytes
	stuck   chan struct{}
	stopped bool
}

func newSideMem(budget int64, stop <-chan struct{}) *sideMem {
	m := &sideMem{budget: budget, stuck: make(chan struct{}, 1)}
	m.cond.L = &m.mu
	go func() {
		<-stop
		m.mu.Lock()
		m.stopped = true
		m.cond.Broadcast()
		m.mu.Unlock()
	}()
	return m
}

// acquire charges n bytes, waiting for room; false once stopped. A block
// alone always fits (blockNeed refuses larger ones), so an empty side
// takes it.
func (m *sideMem) acquire(n int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.used > 0 && m.used+n > m.budget && !m.stopped {
		if !m.waiting {
			m.waiting, m.need = true, n
			select {
			case m.stuck <- struct{}{}: // the comparer may be waiting for this side
			default:
			}
		}
		m.cond.Wait()
	}
	m.waiting = false
	if m.stopped {
		return false
	}
	m.used += n
	return true
}

// adjust changes the charge by n (a block's declared size to its
// buffers' capacity, a block given back: negative).
func (m *sideMem) adjust(n int64) {
	m.mu.Lock()
	m.used += n
	if n < 0 {
		m.cond.Broadcast()
	}
	m.mu.Unlock()
}

// pending moves n charged bytes into (n > 0) or out of (n < 0) the
// comparer's pending chunks; out of them is given back.
func (m *sideMem) pending(n int64) {
	m.mu.Lock()
	m.pend += n
	if n < 0 {
		m.used += n
		m.cond.Broadcast()
	}
	m.mu.Unlock()
}

// pendBytes is what the side's pending chunks hold.
func (m *sideMem) pendBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pend
}

// full reports that the decoder waits for room that only the pending
// chunks hold: nothing of the side is in transit to the comparer, and
// the room it waits for is still missing (a decoder woken by a release
// is still marked waiting until it runs).
func (m *sideMem) full() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waiting && m.used == m.pend && m.used > 0 && m.used+m.need > m.budget
}

// diffBudget is each side's budget.
func diffBudget(c *config) int64 {
	if c.memory > 0 {
		return c.memory
	}
	return mmapio.DefaultMemoryBudget
}

// blockNeed is what decoding block i of a side is charged first, or an
// error when twice that (the block and its copy cut by unit, or it
// pending and the next one decoded) exceeds the budget: such a block
// cannot be compared within it.
func (d *differ) blockNeed(s, i int) (int64, error) {
	sd := d.side[s]
	b := &sd.blocks[i]
	n := int64(max(b.UncompressedSize, b.CompressedSize))
	if budget := sd.mem.budget; 2*n > budget {
		return 0, fmt.Errorf("%s: block %d at byte %d: comparing it takes %d bytes (the block and another as large), more than the memory budget of %d bytes per file: raise it with --memory",
			d.c.files[s], i, b.DataOffset, 2*n, budget)
	}
	return n, nil
}

// fullErr is the error of a side whose pending events fill its budget.
func (d *differ) fullErr(s int) error {
	return fmt.Errorf("%s, %s: the events of %s waiting to be compared with %s's fill the memory budget of %d bytes per file (the runs overlap in cycles too much to be compared within it): raise it with --memory",
		d.c.files[0], d.c.files[1], d.c.files[s], d.c.files[1-s], d.side[s].mem.budget)
}
