package export

import (
	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// flowCounts tells the Chrome JSON sink where each flow event stands in its
// chain. The Trace Event Format's bound flows (bind_id on a slice) need the
// first event of a chain to say flow_out only (it starts the flow: with
// flow_in too, Perfetto's importer takes it for a step of a flow that never
// began and draws nothing), the last flow_in only, and the others both. The
// events stream in cycle order, so whether an event is the last of its flow
// is not known when it is written: a pre-pass over the flow argument counts
// the events of each flow id, and the sink counts them down.
//
// Memory: one map entry per flow id of the export (about 40 bytes), freed as
// each flow's last event is written. The pre-pass is skipped when no format
// has a flow argument, and reads only the flow argument of formats that do.
type flowCounts struct {
	m map[uint64]flowState
}

type flowState struct {
	left uint64 // events of the flow still to be written
	gen  uint32 // output file of the last one written (first in a file starts the chain again)
}

// countFlows runs the pre-pass for the events of q that the exporter writes
// with a flow (span begins, complete spans and instants; span ends and
// counters carry none). It returns nil when no format has a flow argument.
func countFlows(r *mmapio.Reader, q mmapio.Query, fmts []*fmtInfo) (*flowCounts, error) {
	need := false
	for _, f := range fmts {
		if f != nil && f.flow >= 0 && carriesFlow(f.kind) {
			need = true
		}
	}
	if !need {
		return nil, nil
	}
	fc := &flowCounts{m: map[uint64]flowState{}}
	var v argview.View
	it := r.Iter(q)
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		if int(ev.FormatID) >= len(fmts) {
			continue
		}
		f := fmts[ev.FormatID]
		if f == nil || f.flow < 0 || !carriesFlow(f.kind) {
			continue
		}
		v.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
		if !v.Has(f.flow) {
			continue
		}
		if id := v.Uint(f.flow); id != 0 {
			s := fc.m[id]
			s.left++
			fc.m[id] = s
		}
	}
	return fc, it.Err()
}

// carriesFlow says whether the exporter writes an event of this kind (as
// fmtInfo normalized it) with its flow id.
func carriesFlow(k schema.EventKind) bool {
	return k == schema.KindInstant || k == schema.KindSpanBegin || k == schema.KindSpanComplete
}

// step records one event of flow id written in file gen and says which
// ends of the arrow it has: in (an arrow arrives from the flow's previous
// event in this file) and out (an arrow leaves to its next event).
func (fc *flowCounts) step(id uint64, gen uint32) (in, out bool) {
	s, ok := fc.m[id]
	if !ok || s.left == 0 {
		return false, false // not counted: cannot happen for a consistent pre-pass
	}
	in = s.gen == gen
	s.left--
	out = s.left > 0
	if out {
		s.gen = gen
		fc.m[id] = s
	} else {
		delete(fc.m, id)
	}
	return in, out
}
