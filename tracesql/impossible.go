//go:build cgo

package tracesql

import (
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/tracetext"
)

// impossibleSpans counts the complete spans the span scans left out
// because they end before they begin, and describes the first.
type impossibleSpans struct {
	n     atomic.Int64
	mu    sync.Mutex
	first string
}

// impossibleSpan counts a complete span of trace ti that ends before it
// begins (schema.CompleteSpanEnd): the span scans leave it out rather
// than give it a duration of about 1.8e19 cycles.
func (d *DB) impossibleSpan(ti int, unit uint16, name string, c, dur uint64) {
	if d.impossible.n.Add(1) != 1 {
		return
	}
	t := d.traces[ti]
	where := ""
	if d.multi {
		where = "trace " + t.name + ": "
	}
	d.impossible.mu.Lock()
	d.impossible.first = where + tracetext.ImpossibleSpan(name, t.r.UnitName(unit), c, dur)
	d.impossible.mu.Unlock()
}

// ImpossibleSpans returns how many complete spans the scans of spans and
// of the spans' tables left out since Open because they end before they
// begin (begin + duration past the last cycle, as a writer storing
// end-start with end before start made them), each time a scan read one,
// and describes the first ("span exec on core0 at cycle 200, duration
// -50").
func (d *DB) ImpossibleSpans() (n int64, first string) {
	d.impossible.mu.Lock()
	defer d.impossible.mu.Unlock()
	return d.impossible.n.Load(), d.impossible.first
}
