package export

import (
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// A trace merged from several runs (rewrite.Merge: what
// trace_reader reads several files through, or writes with merge) holds
// each run's flows with their own ids, sequence numbers from 0 in every
// run: the same id in two runs is two instructions. A run is what the
// export draws as a process: the units named "<label>/..." for one label of
// WithProcesses or, without it, of the trace's metadata (internal/runs), so
// a merged file read later exports as the multi-file read that made it.
// Flows are joined only within a run: Kanata rows, Chrome JSON bind ids and
// Perfetto flow ids are per run (runs.FlowID), the pre-passes keep one
// flowIndex per run.

// exportRuns returns the labels of r's runs and the run of each unit id
// (nil for a single run: every flow in run 0, the output unchanged).
func exportRuns(r *mmapio.Reader, o options) ([]string, []uint16) {
	labels := o.processes
	if len(labels) == 0 {
		labels = runs.Labels(r.Metadata())
	}
	return labels, runs.Of(r.Units(), r.UnitName, labels)
}

// runIndexes is one flowIndex per run, made on first use.
type runIndexes []*flowIndex

func newRunIndexes(labels []string) runIndexes {
	ri := make(runIndexes, runs.Count(labels))
	ri[0] = newFlowIndex()
	return ri
}

// of returns the flowIndex of a unit's run.
func (ri runIndexes) of(runOf []uint16, unit uint16) *flowIndex {
	if runOf == nil {
		return ri[0]
	}
	x := ri[runOf[unit]]
	if x == nil {
		x = newFlowIndex()
		ri[runOf[unit]] = x
	}
	return x
}
