// Package cyclewin computes the cycle window a query of a trace covers, for
// progress reports of the exporter and the analysis.
package cyclewin

import "github.com/chronon-sim/chronon-go/mmapio"

// Of returns the first and last cycle that q can select in r: the file's
// cycle span (from the footer or the recovered blocks) clipped to q's cycle
// range. ok is false when they do not overlap or the file has no blocks.
func Of(r *mmapio.Reader, q mmapio.Query) (first, last uint64, ok bool) {
	blocks := r.Blocks()
	if len(blocks) == 0 {
		return 0, 0, false
	}
	first, last = blocks[0].MinCycle, blocks[0].MaxCycle
	for i := range blocks {
		first, last = min(first, blocks[i].MinCycle), max(last, blocks[i].MaxCycle)
	}
	if s, e, has := q.Cycles(); has {
		first, last = max(first, s), min(last, e)
	}
	return first, last, first <= last
}

// Reporter turns the current cycle into done and total cycles of the window
// for a progress function.
type Reporter struct {
	first, total uint64
	f            func(done, total uint64)
}

// NewReporter returns a reporter for f over the window of q in r; a nil f
// gives a reporter that does nothing.
func NewReporter(r *mmapio.Reader, q mmapio.Query, f func(done, total uint64)) Reporter {
	if f == nil {
		return Reporter{}
	}
	first, last, ok := Of(r, q)
	if !ok {
		return Reporter{f: f}
	}
	return Reporter{first: first, total: last - first + 1, f: f}
}

// Active says whether Report does anything.
func (p *Reporter) Active() bool { return p.f != nil }

// Report calls the function with the window's cycles up to cycle.
func (p *Reporter) Report(cycle uint64) {
	if p.f == nil {
		return
	}
	done := uint64(0)
	if cycle >= p.first {
		done = min(cycle-p.first+1, p.total)
	}
	p.f(done, p.total)
}

// Done reports the whole window.
func (p *Reporter) Done() {
	if p.f != nil {
		p.f(p.total, p.total)
	}
}
