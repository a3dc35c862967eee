package export

import (
	"cmp"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// flowEnds tells the Chrome JSON sink which ends of an arrow each flow
// event has. The Trace Event Format's bound flows (bind_id on a slice) need
// the first event of a chain to say flow_out only (it starts the flow: with
// flow_in too, Perfetto's importer takes it for a step of a flow that never
// began and draws nothing), the last flow_in only, and the others both.
//
// The events stream in cycle order, so whether an event is the last of its
// flow is not known when it is written. A pre-pass over the flow argument
// (the same query, so the same order) marks, per flow event, whether a later
// event has its flow id: one bit per flow event. While writing, the flows
// with an event in the current file and more to come are kept in a set (as
// many as are in flight at once, a few dozen in a pipeline), which makes an
// event the first of its chain in the file, and is emptied at a split so
// that each file begins its chains again.
//
// Cost: the pre-pass reads the events again but decodes only the flow
// argument of formats that have one, and is skipped when none has; it keeps
// one map entry per flow id until it ends (see flowIndex).
type flowEnds struct {
	next []uint64 // bit i: flow event i has a successor in its flow
	n    uint64   // flow events counted by the pre-pass
	i    uint64   // ordinal of the next flow event written
	live map[uint64]struct{}
}

// countFlows runs the pre-pass for the events of q that the exporter writes
// with a flow (span begins, complete spans and instants; span ends and
// counters carry none). It returns nil when no format has a flow argument.
//
// labels and runOf are the trace's runs (exportRuns): flows are followed
// within a run, one flowIndex each.
func countFlows(r *mmapio.Reader, q mmapio.Query, fmts []*fmtInfo, labels []string, runOf []uint16) (*flowEnds, error) {
	need := false
	for _, f := range fmts {
		if f != nil && f.flow >= 0 && carriesFlow(f.kind) {
			need = true
		}
	}
	if !need {
		return nil, nil
	}
	fe := &flowEnds{live: map[uint64]struct{}{}}
	latest := newRunIndexes(labels)
	var v argview.View
	it := r.Iter(q)
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		fe.count(&ev, fmts, &v, latest, runOf)
	}
	return fe, it.Err()
}

// count numbers ev when the exporter writes it with a flow id, and marks
// the previous event of its flow as having a successor.
func (fe *flowEnds) count(ev *mmapio.Event, fmts []*fmtInfo, v *argview.View, latest runIndexes, runOf []uint16) {
	if int(ev.FormatID) >= len(fmts) {
		return
	}
	f := fmts[ev.FormatID]
	if f == nil || f.flow < 0 || !carriesFlow(f.kind) {
		return
	}
	v.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
	if !v.Has(f.flow) {
		return
	}
	id := v.Uint(f.flow)
	if id == 0 {
		return
	}
	ord := fe.n
	fe.n++
	if ord>>6 >= uint64(len(fe.next)) {
		fe.next = append(fe.next, 0)
	}
	if prev, ok := latest.of(runOf, ev.UnitID).swap(id, ord); ok {
		fe.next[prev>>6] |= 1 << (prev & 63)
	}
}

// carriesFlow says whether the exporter writes an event of this kind (as
// fmtInfo normalized it) with its flow id.
func carriesFlow(k schema.EventKind) bool {
	return k == schema.KindInstant || k == schema.KindSpanBegin || k == schema.KindSpanComplete || k == schema.KindAsyncBegin
}

// step is called for each flow event written (id as written: runs.FlowID
// of its run), in order, and says which
// ends of the arrow it has: in (an arrow arrives from the flow's previous
// event in this file) and out (an arrow leaves to its next event).
func (fe *flowEnds) step(id uint64) (in, out bool) {
	ord := fe.i
	fe.i++
	out = ord < fe.n && fe.next[ord>>6]>>(ord&63)&1 != 0
	_, in = fe.live[id]
	switch {
	case out && !in:
		fe.live[id] = struct{}{}
	case !out && in:
		delete(fe.live, id)
	}
	return in, out
}

// newFile forgets the chains of the previous file: each begins again.
func (fe *flowEnds) newFile() { clear(fe.live) }

// flowIndex maps a flow id to the ordinal of its latest event. Flows are
// short-lived (an instruction crosses a pipeline in a few cycles) and a
// trace has millions: one hash map of all of them costs a cache miss per
// event, and its inserts as much again. Recent flows live in a small map
// (young); when it fills, its entries are sorted by id into a run, and runs
// are merged like a binary counter (a run is merged into the one before it
// while that one is no longer), so there are at most log2 of them and each
// entry is copied log2 times, sequentially. A miss in young looks in the
// runs whose id range holds the id (binary search): ids that count up, like
// sequence numbers, fall outside every run and cost a comparison per run.
// Old entries take 16 bytes. Exact whatever the ids.
//
// In front of young, a direct-mapped cache (recent, slot id mod
// recentFlows) holds the flows seen last: the events of a flow come close
// together, so most of them hit their slot and never reach the map. A flow
// in its slot is there only (the map may hold an older ord for it); it is
// written back to young when another flow takes the slot.
//
// Ids that count up skip young: a flow written back with an id above every
// id stored so far (max) is new to the index and is appended to tail, a
// run in the making, which becomes a run when it holds youngFlows entries
// (no hashing, no sorting).
type flowIndex struct {
	recent  [recentFlows]recentFlow
	young   map[uint64]uint64
	runs    [][]idOrd // each sorted by id; lengths decreasing
	tail    []idOrd   // sorted by id
	max     uint64    // the largest id stored in young, runs or tail
	storing bool      // one was
}

type recentFlow struct {
	id, ord uint64
	used    bool
}

const recentFlows = 1 << 10

type idOrd struct{ id, ord uint64 }

const youngFlows = 1 << 13

func newFlowIndex() *flowIndex {
	return &flowIndex{}
}

// swap records ord as the latest event of id and returns the previous one.
func (x *flowIndex) swap(id, ord uint64) (prev uint64, ok bool) {
	s := &x.recent[id%recentFlows]
	if s.used && s.id == id {
		prev, s.ord = s.ord, ord
		return prev, true
	}
	if s.used {
		x.store(s.id, s.ord)
	}
	// An entry for id in young or the runs is stale from here on, unused
	// while id holds the slot, and updated when it leaves it.
	prev, ok = x.lookup(id)
	*s = recentFlow{id: id, ord: ord, used: true}
	return prev, ok
}

// lookup returns the ord young, the runs or the tail hold for id.
func (x *flowIndex) lookup(id uint64) (uint64, bool) {
	if !x.storing || id > x.max {
		return 0, false // new to the index: ids counting up take this way
	}
	if ord, ok := x.young[id]; ok {
		return ord, true
	}
	if e := x.inRuns(id); e != nil {
		return *e, true
	}
	return 0, false
}

// inRuns locates the ord a run or the tail holds for id, or nil.
func (x *flowIndex) inRuns(id uint64) *uint64 {
	for _, r := range x.runs {
		if e := findInRun(r, id); e != nil {
			return e
		}
	}
	return findInRun(x.tail, id)
}

func findInRun(r []idOrd, id uint64) *uint64 {
	if len(r) == 0 || id < r[0].id || id > r[len(r)-1].id {
		return nil
	}
	if k, found := slices.BinarySearchFunc(r, id, func(e idOrd, id uint64) int { return cmp.Compare(e.id, id) }); found {
		return &r[k].ord
	}
	return nil
}

// store records ord as the latest event of id in young, the runs or the
// tail.
func (x *flowIndex) store(id, ord uint64) {
	if !x.storing || id > x.max { // new, above all: append to the tail
		x.storing, x.max = true, id
		x.tail = append(x.tail, idOrd{id, ord})
		if len(x.tail) >= youngFlows {
			x.addRun(x.tail)
			x.tail = nil
		}
		return
	}
	if _, ok := x.young[id]; ok {
		x.young[id] = ord
		return
	}
	if e := x.inRuns(id); e != nil {
		*e = ord
		return
	}
	if x.young == nil { // made when needed: ids counting up never need it
		x.young = make(map[uint64]uint64, youngFlows)
	}
	if len(x.young) >= youngFlows {
		x.age()
	}
	x.young[id] = ord
}

// age moves the young flows into a new run, merging runs as needed.
func (x *flowIndex) age() {
	r := make([]idOrd, 0, len(x.young))
	for id, ord := range x.young {
		r = append(r, idOrd{id, ord})
	}
	clear(x.young)
	slices.SortFunc(r, func(a, b idOrd) int { return cmp.Compare(a.id, b.id) })
	x.addRun(r)
}

// addRun adds a sorted run, merging runs like a binary counter.
func (x *flowIndex) addRun(r []idOrd) {
	x.runs = append(x.runs, r)
	for n := len(x.runs); n >= 2 && len(x.runs[n-1]) >= len(x.runs[n-2]); n-- {
		x.runs[n-2] = mergeRuns(x.runs[n-2], x.runs[n-1])
		x.runs = x.runs[:n-1]
	}
}

// mergeRuns merges two runs with distinct ids.
func mergeRuns(a, b []idOrd) []idOrd {
	out := make([]idOrd, 0, len(a)+len(b))
	if len(a) > 0 && len(b) > 0 && a[len(a)-1].id < b[0].id { // ids counting up
		return append(append(out, a...), b...)
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].id < b[j].id {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
