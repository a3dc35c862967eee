package tracesql

import "sync"

// budget bounds the decoded data the scans of a database hold at once, over
// all their threads: a thread takes a block's cost before it decodes it and
// gives it back when done with it, waiting while others hold too much. A
// cost above the whole budget is refused (the caller's error names the
// block), as an iteration refuses a block too large for its budget alone.
//
// A holder is active while it is inside a call of its table function and
// parked between calls (DuckDB may put its task aside and run others on
// every thread). A thread waits only while some holder is active, since an
// active one soon gives its memory back or parks; when every holder is
// parked, waiting could last forever (the threads that would resume them
// are the ones waiting), so the thread goes over the budget instead: by at
// most what the parked holders keep, one block each.
type budget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	limit  int64
	held   int64
	active int
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take waits until n bytes fit, or no holder is active, and takes them:
// the caller is then an active holder. false when n exceeds the whole
// budget.
func (b *budget) take(n int64) bool {
	if n > b.limit {
		return false
	}
	b.mu.Lock()
	for b.held+n > b.limit && b.active > 0 {
		b.cond.Wait()
	}
	b.held += n
	b.active++
	b.mu.Unlock()
	return true
}

// give returns n bytes an active holder took: it holds nothing any more.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.held -= n
	b.active--
	b.mu.Unlock()
	b.cond.Broadcast()
}

// park marks an active holder parked (it returns from a call holding).
func (b *budget) park() {
	b.mu.Lock()
	b.active--
	b.mu.Unlock()
	b.cond.Broadcast()
}

// unpark marks a parked holder active again.
func (b *budget) unpark() {
	b.mu.Lock()
	b.active++
	b.mu.Unlock()
}
