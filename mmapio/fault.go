package mmapio

import (
	"runtime/debug"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Faults on the mapping: a read of a mapped file that shrank becomes a
// *FaultError (the recovery is tracefile's, which a function reading the
// mapping defers; its workers set panic-on-fault for their lifetime).

// panicOnFault makes a fault on the mapping panic in this goroutine and
// returns the previous setting.
func panicOnFault() bool { return tracefile.PanicOnFault() }

// guardSegment is deferred by segPipe.process, on a worker that panics on
// faults: a fault while the segment is merged or rendered ends the
// iteration there, with none of the segment's events (its state may be
// half built). Faults in decoding are already the block's error.
func (sp *segPipe) guardSegment(seg *segment) {
	if v := recover(); v != nil {
		fe := sp.r.f.Fault(v)
		if fe == nil {
			panic(v)
		}
		seg.err, seg.last = fe, false
		seg.refs, seg.text = seg.refs[:0], seg.text[:0]
		seg.base, seg.rendered = 0, 0
	}
}

// guardFault is deferred by Iterator.nextSegment: a fault ends the
// iteration with the fault as its error (and the Reader's).
func (it *Iterator) guardFault(old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		fe := it.r.f.Fault(v)
		if fe == nil {
			panic(v)
		}
		it.err = fe
		it.r.setErr(fe)
		it.Close()
	}
}
