package tracesql

import (
	"sync"
	"time"
)

// budget bounds the decoded data the scans of a database hold at once, over
// all their threads: a thread takes a block's cost before it decodes it and
// gives it back when done with it, waiting while others hold too much. A
// cost above the whole budget is refused (the caller's error names the
// block), as an iteration refuses a block too large for its budget alone.
//
// A holder is active while it is inside a call of its table function and
// parked between calls (DuckDB may put its task aside and run others on
// every thread). A thread waits while some holder is active, since an
// active one soon gives its memory back or parks. A holder parks between
// every two chunks it writes, for microseconds, so a thread also waits
// while the holders have been parked for less than parkGrace: they are
// about to resume. Only when every holder has stayed parked that long
// (the threads that would resume them may be the ones waiting, or the
// query's consumer stopped fetching) does the thread go over the budget
// instead of waiting for ever: by at most what the parked holders keep,
// one block each.
type budget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	limit  int64
	held   int64
	active int
	idle   time.Time // when active last fell to 0
	peak   int64     // most held at once (tests)
}

// parkGrace is how long every holder must have stayed parked before a
// thread goes over the budget rather than wait for them.
const parkGrace = 50 * time.Millisecond

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take waits until n bytes fit, or no holder has been active for
// parkGrace, and takes them: the caller is then an active holder. false
// when n exceeds the whole budget.
func (b *budget) take(n int64) bool {
	if n > b.limit {
		return false
	}
	b.mu.Lock()
	for b.held+n > b.limit {
		if b.active == 0 {
			left := parkGrace - time.Since(b.idle)
			if left <= 0 {
				break
			}
			t := time.AfterFunc(left, b.cond.Broadcast)
			b.cond.Wait()
			t.Stop()
			continue
		}
		b.cond.Wait()
	}
	b.held += n
	b.peak = max(b.peak, b.held)
	b.activate()
	b.mu.Unlock()
	return true
}

// give returns n bytes an active holder took: it holds nothing any more.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.held -= n
	b.deactivate()
	b.mu.Unlock()
	b.cond.Broadcast()
}

// park marks an active holder parked (it returns from a call holding).
func (b *budget) park() {
	b.mu.Lock()
	b.deactivate()
	b.mu.Unlock()
	b.cond.Broadcast()
}

// unpark marks a parked holder active again.
func (b *budget) unpark() {
	b.mu.Lock()
	b.activate()
	b.mu.Unlock()
}

func (b *budget) activate() { b.active++ }

func (b *budget) deactivate() {
	if b.active--; b.active == 0 {
		b.idle = time.Now()
	}
}

// peakHeld is the most the budget's holders held at once.
func (b *budget) peakHeld() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}
