package export

import (
	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// lastEvents knows, for each event of an instruction (an event with a
// non-zero flow id), whether it is the last of its flow in the export's
// selection: the Kanata export retires an instruction at the end of its
// last stage, and a Kanata log cannot go back to a cycle once it has
// stepped past it, so whether more is to come must be known when the event
// is written. A pre-pass over the flow argument (the same query, so the
// same order) marks, per flow event, whether a later event has its flow id:
// one bit per flow event, as for Chrome JSON's flow ends (flows.go).
type lastEvents struct {
	next      []uint64 // bit i: flow event i has a successor in its flow
	events    uint64   // events selected, with a flow or not
	n         uint64   // flow events
	flowSpans uint64   // ... that are spans
	spans     uint64   // span events, with a flow or not
	deps      bool     // some flow event has a dependency argument
}

// flowEventID returns the flow id of an event of format f, or 0 when the
// event belongs to no instruction; v is scratch.
func flowEventID(f *kFmt, ev *mmapio.Event, v *argview.View) uint64 {
	id, _ := f.arg(f.flow, ev, v)
	return id
}

// scanLastEvents runs the pre-pass; flows are followed within a run
// (labels and runOf as exportRuns gives them).
func scanLastEvents(r *mmapio.Reader, q mmapio.Query, fmts []*kFmt, labels []string, runOf []uint16) (*lastEvents, error) {
	le := &lastEvents{}
	latest := newRunIndexes(labels)
	var v argview.View
	it := r.Iter(q)
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		le.events++
		if int(ev.FormatID) >= len(fmts) || fmts[ev.FormatID] == nil {
			continue
		}
		f := fmts[ev.FormatID]
		if f.isSpan() {
			le.spans++
		}
		if f.flow < 0 {
			continue
		}
		id := flowEventID(f, &ev, &v)
		if id == 0 {
			continue
		}
		ord := le.n
		le.n++
		if f.isSpan() {
			le.flowSpans++
		}
		if f.dep >= 0 {
			le.deps = true
		}
		if ord>>6 >= uint64(len(le.next)) {
			le.next = append(le.next, 0)
		}
		if prev, ok := latest.of(runOf, ev.UnitID).swap(id, ord); ok {
			le.next[prev>>6] |= 1 << (prev & 63)
		}
	}
	return le, it.Err()
}

// more says whether flow event ord (counted in the same order as the
// pre-pass) has a successor in its flow.
func (le *lastEvents) more(ord uint64) bool {
	return ord < le.n && le.next[ord>>6]>>(ord&63)&1 != 0
}
