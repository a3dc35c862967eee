package analysis

import (
	"container/heap"
	"errors"
	"math"
	"math/bits"
	"sort"
	"strconv"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/heldmem"
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Report is the result of Stats. Its JSON form is what `stats --json` prints.
type Report struct {
	Window    Window           `json:"window"`
	Events    uint64           `json:"events"`
	Units     []UnitStats      `json:"units"`
	Formats   []FormatStats    `json:"formats"`
	Spans     []SpanStats      `json:"spans"`
	Occupancy []OccupancyStats `json:"occupancy"`
	Stages    []StageStats     `json:"stages"`
	Trees     []TreeStats      `json:"trees,omitempty"`
	// Notes counts what the statistics could not use or do not cover:
	// unmatched_span_ends (a span end with no begin, in the window or
	// open at its start: a window keeps the spans open at its start,
	// beginning there, as the exports and SQL do),
	// spans_open_at_end (begun, not ended in the window),
	// parents_begun_after_child (a parent id whose span began in a later
	// cycle than its child), parents_in_a_cycle_of_ids (spans of one cycle
	// whose parent ids name each other: one of them goes without),
	// parents_not_found (a parent id that named no span in the window), and
	// events_dropped_by_the_writer_in_the_file (the writer's unit stats:
	// the rates count only what the file holds), and
	// complete_spans_ending_before_they_begin (left out of the spans and
	// the occupancy; ImpossibleSpans names the first few).
	Notes map[string]uint64 `json:"notes,omitempty"`
	// MissingParents names the parent ids the parents_ notes count, keyed
	// as they are: the first MaxMissingParents of each reason, each with the
	// first child that named it.
	MissingParents map[string][]MissingParent `json:"missing_parents,omitempty"`
	// ImpossibleSpans names the first complete spans whose end is before
	// their begin, in the order read.
	ImpossibleSpans []ImpossibleSpan `json:"impossible_spans,omitempty"`
}

// Window is the cycle range the rates and occupancies are relative to: the
// query's range when it has one, else the first to the last event.
type Window struct {
	Start  uint64 `json:"start"`
	End    uint64 `json:"end"` // inclusive
	Cycles uint64 `json:"cycles"`
	// With a time base in the trace (chronon.WithTimeBase): how long one
	// cycle lasts ("1 ps") and the window in seconds; the rates per second
	// below are then filled in.
	TimeBase string  `json:"time_base,omitempty"`
	Seconds  float64 `json:"seconds,omitempty"`
}

// UnitStats counts one unit's events.
type UnitStats struct {
	ID         uint16  `json:"id"`
	Name       string  `json:"name"`
	Events     uint64  `json:"events"`
	First      uint64  `json:"first_cycle"`
	Last       uint64  `json:"last_cycle"`
	PerKCycles float64 `json:"events_per_1k_cycles"`
	PerSecond  float64 `json:"events_per_second,omitempty"` // of simulated time, by the unit's clock
}

// FormatStats counts one format's events.
type FormatStats struct {
	ID         uint32  `json:"id"`
	Format     string  `json:"format"`
	Kind       string  `json:"kind"`
	Events     uint64  `json:"events"`
	First      uint64  `json:"first_cycle"`
	Last       uint64  `json:"last_cycle"`
	PerKCycles float64 `json:"events_per_1k_cycles"`
	PerSecond  float64 `json:"events_per_second,omitempty"` // of simulated time, by the trace's time base
}

// Dist summarizes a distribution of cycle counts.
type Dist struct {
	Count     uint64   `json:"count"`
	Min       uint64   `json:"min"`
	Mean      float64  `json:"mean"`
	P50       uint64   `json:"p50"`
	P99       uint64   `json:"p99"`
	Max       uint64   `json:"max"`
	Histogram []Bucket `json:"histogram"`
}

// Bucket counts values in [Lo, Hi].
type Bucket struct {
	Lo    uint64 `json:"lo"`
	Hi    uint64 `json:"hi"`
	Count uint64 `json:"count"`
}

// SpanStats is the duration distribution of one span on one unit.
type SpanStats struct {
	Unit string `json:"unit"`
	Span string `json:"span"`
	Dist
}

// OccupancyStats: cycles of the window during which at least one span was
// open on the unit (Lane "") or on one lane.
type OccupancyStats struct {
	Unit      string  `json:"unit"`
	Lane      string  `json:"lane,omitempty"`
	Busy      uint64  `json:"busy_cycles"`
	Occupancy float64 `json:"occupancy"`
}

// StageStats is the latency from one unit to the next along flows. In a
// trace merged from several runs (rewrite.Merge: units named
// "<label>/<unit>", the labels in its metadata) a flow is a flow id within
// one run: events of two runs never pair, whatever their ids.
type StageStats struct {
	From string `json:"from"`
	To   string `json:"to"`
	Dist
}

// Stats reads the events of r that q selects and summarizes them. What it
// holds for the spans open at once and the lanes seen may take a quarter
// of r's memory budget (mmapio.WithMemoryBudget): past that, as when spans
// begin and never end, it stops with an error naming the file, the cycle
// and the budget.
func Stats(r *mmapio.Reader, q mmapio.Query, opts ...Option) (*Report, error) {
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("analysis: nil Option")
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	progress := cyclewin.NewReporter(r, q, o.progress)
	s := newStater(r)
	read := q
	s.win.open = true
	if a, b, ok := q.Cycles(); ok && a > 0 && hasSpans(r) {
		read, s.win = q.WithCycles(0, b), windowed{from: a} // the lookback (lookback.go)
	}
	it := r.Iter(read)
	defer it.Close()
	emit := func(in spantree.Info, ev mmapio.Event, res spantree.Resolved) error {
		if ev.Cycle < s.win.from {
			s.lookback(&ev, res)
			return nil
		}
		s.openWindow()
		s.parents.see(in, res)
		s.event(&ev, res)
		return nil
	}
	for n := 1; it.Next(); n++ {
		ev := it.Event()
		if n&heldmem.CheckMask == 0 { // every few thousand events: see held.go
			if err := s.checkHeld(ev.Cycle); err != nil {
				return nil, err
			}
		}
		if s.order != nil {
			s.order.Push(s.treeInfo(&ev), ev, emit)
		} else {
			emit(spantree.Info{}, ev, noTree)
		}
		if progress.Active() && ev.Cycle >= s.win.from && s.events&0xFFFF == 0 { // progress through the window, not its lookback
			progress.Report(ev.Cycle)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if s.order != nil {
		s.order.Flush(emit)
	}
	s.openWindow() // no event in the window: what was open at its start is open at its end
	progress.Done()
	rep := s.report(q)
	// Rates count what the file holds: say when the writer dropped events
	// (Drop policy, I/O errors), so they are not read as the whole run's.
	var dropped uint64
	for _, u := range r.UnitStats() {
		dropped += u.Dropped
	}
	if dropped > 0 {
		if rep.Notes == nil {
			rep.Notes = map[string]uint64{}
		}
		rep.Notes["events_dropped_by_the_writer_in_the_file"] = dropped
	}
	return rep, nil
}

type stater struct {
	r       *mmapio.Reader
	fmts    map[uint32]*fmtRoles
	units   map[uint16]*counted
	formats map[uint32]*counted
	spans   map[spanKey]*hist
	stages  map[stageKey]*hist
	flows   []map[uint64]flowPos // by run: flows pair only within one (see runOf)
	runOf   []uint16             // run of each unit id in a merged trace; nil: one run
	occ     map[occKey]*sweep
	ends    endHeap
	open    map[laneKey][]uint64            // begin cycles of begin/end spans, innermost last
	order   *spantree.Orderer[mmapio.Event] // when a format has an id or a parent
	async   map[int64]openAsync             // open async spans by node
	trees   *trees                          // every async span, when a format has a parent
	win     windowed                        // a window's lookback (lookback.go)
	parents parentNotes                     // why parent ids named no span
	events  uint64
	first   uint64
	last    uint64
	notes   map[string]uint64
	view    argview.View
	histSeq uint64 // order in which distributions were first seen

	// impossible names the first complete spans ending before they begin.
	impossible []ImpossibleSpan

	stackBytes int64 // of the open stacks' capacity (held.go)
	lanes      int   // lane sweeps in occ (the others are the units')
	heldLimit  int64 // what s may hold: a quarter of r's memory budget
}

type counted struct {
	n, first, last uint64
}

func (c *counted) add(cycle uint64) {
	if c.n == 0 {
		c.first = cycle
	}
	c.n++
	c.last = cycle
}

type fmtRoles struct {
	f                      *mmapio.Format
	name                   string
	lane, flow, dur, value int
	id, parent             int
}

// openAsync is an async span begun and not ended.
type openAsync struct {
	begin uint64
	unit  uint16
	name  string
}

// noTree is the resolution of an event when no format has an id or parent.
var noTree = spantree.Resolved{Node: -1, Parent: -1}

type spanKey struct {
	unit uint16
	name string
}

type stageKey struct{ from, to uint16 }

type flowPos struct {
	unit  uint16
	cycle uint64
}

type laneKey struct {
	unit uint16
	lane uint64
	has  bool
}

type occKey struct {
	unit uint16
	lane uint64
	kind uint8 // 0 unit, 1 lane
}

func newStater(r *mmapio.Reader) *stater {
	s := &stater{
		r: r, fmts: map[uint32]*fmtRoles{}, units: map[uint16]*counted{}, formats: map[uint32]*counted{},
		spans: map[spanKey]*hist{}, stages: map[stageKey]*hist{},
		occ: map[occKey]*sweep{}, open: map[laneKey][]uint64{}, notes: map[string]uint64{},
	}
	// A trace merged from several runs has each run's flow ids (sequence
	// numbers from 0 in every one): the same id in two runs is two flows.
	labels := runs.Labels(r.Metadata())
	s.runOf = runs.Of(r.Units(), r.UnitName, labels)
	s.flows = make([]map[uint64]flowPos, runs.Count(labels))
	for i := range s.flows {
		s.flows[i] = map[uint64]flowPos{}
	}
	for _, f := range r.Formats() {
		if s.fmts[f.ID] != nil {
			continue
		}
		fr := &fmtRoles{f: f, name: f.Name, lane: -1, flow: -1, dur: -1, value: -1, id: -1, parent: -1}
		if fr.name == "" {
			fr.name = f.Format.Format
		}
		for i, t := range f.ArgTypes {
			integer := t >= schema.ArgInt8 && t <= schema.ArgUInt64
			switch f.Role(i) {
			case schema.RoleLane:
				fr.lane = i
			case schema.RoleFlow:
				fr.flow = i
			case schema.RoleDuration:
				fr.dur = i
			case schema.RoleValue:
				fr.value = i
			case schema.RoleID:
				if integer && fr.id < 0 {
					fr.id = i
				}
			case schema.RoleParent:
				if integer && fr.parent < 0 {
					fr.parent = i
				}
			}
		}
		s.fmts[f.ID] = fr
		if fr.id >= 0 || fr.parent >= 0 {
			if s.order == nil {
				s.order = spantree.NewOrderer[mmapio.Event]()
				s.order.Clone = func(ev mmapio.Event) mmapio.Event { return ev.Clone() }
				s.async = map[int64]openAsync{}
			}
			if fr.parent >= 0 && s.trees == nil {
				s.trees = &trees{keyIdx: map[treeKey]uint32{}}
			}
		}
	}
	return s
}

// treeInfo describes an event to the orderer.
func (s *stater) treeInfo(ev *mmapio.Event) spantree.Info {
	in := spantree.Info{Cycle: ev.Cycle, Unit: ev.UnitID}
	if s.runOf != nil {
		in.Run = s.runOf[ev.UnitID]
	}
	fr := s.fmts[ev.FormatID]
	if fr == nil || fr.id < 0 && fr.parent < 0 {
		return in
	}
	v := &s.view
	v.Reset(fr.f.ArgTypes, ev.RawArgs(), int(ev.ArgCount))
	if v.Has(fr.id) {
		in.ID = v.Uint(fr.id)
		switch fr.f.Kind {
		case schema.KindAsyncBegin:
			in.Kind = spantree.Begin
		case schema.KindAsyncEnd:
			in.Kind = spantree.End
		case schema.KindInstant:
			in.Kind = spantree.Member
		}
	}
	if v.Has(fr.parent) {
		in.Parent = v.Uint(fr.parent)
	}
	return in
}

func (s *stater) event(ev *mmapio.Event, res spantree.Resolved) {
	c := ev.Cycle
	s.closeSpans(c) // complete spans ending by now
	if s.events == 0 {
		s.first = c
	}
	s.events++
	s.last = c
	u := s.units[ev.UnitID]
	if u == nil {
		u = &counted{}
		s.units[ev.UnitID] = u
	}
	u.add(c)
	fc := s.formats[ev.FormatID]
	if fc == nil {
		fc = &counted{}
		s.formats[ev.FormatID] = fc
	}
	fc.add(c)
	fr := s.fmts[ev.FormatID]
	if fr == nil {
		return
	}
	v := &s.view
	v.Reset(fr.f.ArgTypes, ev.RawArgs(), int(ev.ArgCount))
	if v.Has(fr.flow) {
		if flow := v.Uint(fr.flow); flow != 0 {
			s.flowStep(flow, ev.UnitID, c)
		}
	}
	lk := laneKey{unit: ev.UnitID}
	if v.Has(fr.lane) {
		lk.lane, lk.has = v.Uint(fr.lane), true
	}
	switch fr.f.Kind {
	case schema.KindAsyncBegin:
		if res.Node < 0 {
			return
		}
		s.async[res.Node] = openAsync{begin: c, unit: ev.UnitID, name: fr.name}
		s.occStart(laneKey{unit: ev.UnitID}, c)
		if s.trees != nil {
			s.trees.begin(res.Node, res.Parent, ev.UnitID, fr.name, c)
		}
	case schema.KindAsyncEnd:
		a, ok := s.async[res.Node]
		if res.Node < 0 || !ok {
			s.notes["unmatched_span_ends"]++
			return
		}
		delete(s.async, res.Node)
		ak := laneKey{unit: a.unit}
		s.span(ak, a.name, a.begin, c-a.begin)
		s.occEnd(ak, c)
		if s.trees != nil && res.Node < int64(len(s.trees.nodes)) {
			s.trees.nodes[res.Node].end = c
		}
	case schema.KindSpanComplete:
		dur, durType := uint64(0), schema.ArgUInt64
		if v.Has(fr.dur) {
			dur, durType = v.Uint(fr.dur), fr.f.ArgTypes[fr.dur]
		}
		end, ok := schema.CompleteSpanEnd(c, dur, durType)
		if !ok {
			s.impossibleSpan(ev.UnitID, fr.name, c, dur)
			return
		}
		s.span(lk, fr.name, c, dur)
		s.occStart(lk, c)
		heap.Push(&s.ends, pending{cycle: end, lane: lk})
	case schema.KindSpanBegin:
		s.push(lk, c)
		s.occStart(lk, c)
	case schema.KindSpanEnd:
		st := s.open[lk]
		if len(st) == 0 {
			s.notes["unmatched_span_ends"]++
			return
		}
		begin := st[len(st)-1]
		s.open[lk] = st[:len(st)-1]
		s.span(lk, fr.name, begin, c-begin)
		s.occEnd(lk, c)
	}
}

func (s *stater) span(lk laneKey, name string, start, dur uint64) {
	k := spanKey{unit: lk.unit, name: name}
	h := s.spans[k]
	if h == nil {
		h = s.newHist()
		s.spans[k] = h
	}
	h.add(dur)
}

func (s *stater) flowStep(flow uint64, unit uint16, c uint64) {
	flows := s.flows[0]
	if s.runOf != nil {
		flows = s.flows[s.runOf[unit]]
	}
	prev, ok := flows[flow]
	flows[flow] = flowPos{unit: unit, cycle: c}
	if !ok || prev.unit == unit {
		return
	}
	k := stageKey{from: prev.unit, to: unit}
	h := s.stages[k]
	if h == nil {
		h = s.newHist()
		s.stages[k] = h
	}
	h.add(c - prev.cycle)
}

// Occupancy sweeps: one per unit and one per lane, each counting the spans
// open on it and accumulating the cycles during which the count is non-zero.
type sweep struct {
	active int
	since  uint64
	busy   uint64
}

func (w *sweep) start(c uint64) {
	if w.active == 0 {
		w.since = c
	}
	w.active++
}

func (w *sweep) end(c uint64) {
	w.active--
	if w.active == 0 && c > w.since {
		w.busy += c - w.since
	}
}

func (s *stater) sweeps(lk laneKey) [2]*sweep {
	var out [2]*sweep
	keys := []occKey{{unit: lk.unit}}
	if lk.has {
		keys = append(keys, occKey{unit: lk.unit, lane: lk.lane, kind: 1})
	}
	for i, k := range keys {
		w := s.occ[k]
		if w == nil {
			w = &sweep{}
			s.occ[k] = w
			s.lanes += int(k.kind) // held.go
		}
		out[i] = w
	}
	return out
}

func (s *stater) occStart(lk laneKey, c uint64) {
	for _, w := range s.sweeps(lk) {
		if w != nil {
			w.start(c)
		}
	}
}

func (s *stater) occEnd(lk laneKey, c uint64) {
	for _, w := range s.sweeps(lk) {
		if w != nil {
			w.end(c)
		}
	}
}

// closeSpans ends the complete spans that end at or before c.
func (s *stater) closeSpans(c uint64) {
	for len(s.ends) > 0 && s.ends[0].cycle <= c {
		e := heap.Pop(&s.ends).(pending)
		s.occEnd(e.lane, e.cycle)
	}
}

type pending struct {
	cycle uint64
	lane  laneKey
}

type endHeap []pending

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].cycle < h[j].cycle }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(pending)) }
func (h *endHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (s *stater) report(q mmapio.Query) *Report {
	rep := &Report{Events: s.events, Notes: s.notes, ImpossibleSpans: s.impossible}
	s.parents.note(s.notes)
	rep.MissingParents = s.parents.named(s.r.UnitName)
	if start, end, ok := q.Cycles(); ok && end != math.MaxUint64 {
		rep.Window = Window{Start: start, End: end}
	} else if s.events > 0 {
		rep.Window = Window{Start: s.first, End: s.last}
		if ok {
			rep.Window.Start = start
		}
	}
	if s.events > 0 || rep.Window.End > rep.Window.Start {
		rep.Window.Cycles = rep.Window.End - rep.Window.Start + 1
	}
	// Spans still open at the end of the window count as busy until then.
	end := rep.Window.End + 1
	for len(s.ends) > 0 {
		e := heap.Pop(&s.ends).(pending)
		s.occEnd(e.lane, min(e.cycle, end))
	}
	for lk, st := range s.open {
		for range st {
			s.occEnd(lk, end)
			s.notes["spans_open_at_end"]++
		}
	}
	for _, a := range s.async {
		s.occEnd(laneKey{unit: a.unit}, end)
		s.notes["spans_open_at_end"]++
	}
	rate := func(n uint64) float64 {
		if rep.Window.Cycles == 0 {
			return 0
		}
		return float64(n) * 1000 / float64(rep.Window.Cycles)
	}
	name := func(id uint16) string {
		if n := s.r.UnitName(id); n != "" {
			return n
		}
		return "unit " + strconv.FormatUint(uint64(id), 10)
	}
	sch := s.r.Schema()
	if !sch.TimeBase.IsZero() {
		rep.Window.TimeBase = sch.TimeBase.String()
		rep.Window.Seconds = sch.TimeBase.Seconds(rep.Window.Cycles)
	}
	// perSecond is n events over the window in seconds by time base tb.
	perSecond := func(n uint64, tb schema.TimeBase) float64 {
		if sec := tb.Seconds(rep.Window.Cycles); sec > 0 {
			return float64(n) / sec
		}
		return 0
	}
	for id, c := range s.units {
		rep.Units = append(rep.Units, UnitStats{ID: id, Name: s.r.UnitName(id), Events: c.n, First: c.first, Last: c.last, PerKCycles: rate(c.n),
			PerSecond: perSecond(c.n, sch.TimeBaseOf(id))})
	}
	sort.Slice(rep.Units, func(i, j int) bool { return rep.Units[i].ID < rep.Units[j].ID })
	for id, c := range s.formats {
		fs := FormatStats{ID: id, Format: "[unknown format]", Kind: "instant", Events: c.n, First: c.first, Last: c.last, PerKCycles: rate(c.n),
			PerSecond: perSecond(c.n, sch.TimeBase)}
		if f := s.fmts[id]; f != nil {
			fs.Format, fs.Kind = f.f.Format.Format, f.f.Kind.String()
		}
		rep.Formats = append(rep.Formats, fs)
	}
	sort.Slice(rep.Formats, func(i, j int) bool { return rep.Formats[i].ID < rep.Formats[j].ID })
	for k, h := range s.spans {
		rep.Spans = append(rep.Spans, SpanStats{Unit: name(k.unit), Span: k.name, Dist: h.dist()})
	}
	sort.Slice(rep.Spans, func(i, j int) bool {
		a, b := rep.Spans[i], rep.Spans[j]
		return a.Unit < b.Unit || a.Unit == b.Unit && a.Span < b.Span
	})
	for k, w := range s.occ {
		o := OccupancyStats{Unit: name(k.unit), Busy: w.busy}
		if k.kind == 1 {
			o.Lane = strconv.FormatUint(k.lane, 10)
		}
		if rep.Window.Cycles > 0 {
			o.Occupancy = float64(w.busy) / float64(rep.Window.Cycles)
		}
		rep.Occupancy = append(rep.Occupancy, o)
	}
	sort.Slice(rep.Occupancy, func(i, j int) bool {
		a, b := rep.Occupancy[i], rep.Occupancy[j]
		if a.Unit != b.Unit {
			return a.Unit < b.Unit
		}
		if len(a.Lane) != len(b.Lane) {
			return len(a.Lane) < len(b.Lane)
		}
		return a.Lane < b.Lane
	})
	for k, h := range s.stages {
		rep.Stages = append(rep.Stages, StageStats{From: name(k.from), To: name(k.to), Dist: h.dist()})
	}
	// Stages in pipeline order: by the earliest... simplest stable order is
	// by mean latency position; use the first cycle the transition was seen.
	order := map[stageKey]uint64{}
	for k, h := range s.stages {
		order[k] = h.firstSeen
	}
	keys := make([]stageKey, 0, len(s.stages))
	for k := range s.stages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if order[keys[i]] != order[keys[j]] {
			return order[keys[i]] < order[keys[j]]
		}
		return keys[i].from < keys[j].from || keys[i].from == keys[j].from && keys[i].to < keys[j].to
	})
	rep.Stages = rep.Stages[:0]
	for _, k := range keys {
		rep.Stages = append(rep.Stages, StageStats{From: name(k.from), To: name(k.to), Dist: s.stages[k].dist()})
	}
	if s.trees != nil {
		rep.Trees = s.trees.report(end, name)
	}
	return rep
}

// hist is an exact sparse histogram of cycle counts.
type hist struct {
	counts    map[uint64]uint64
	n         uint64
	sum       float64
	firstSeen uint64
}

func (s *stater) newHist() *hist {
	s.histSeq++
	return &hist{counts: map[uint64]uint64{}, firstSeen: s.histSeq}
}

func newHist() *hist { return &hist{counts: map[uint64]uint64{}} }

func (h *hist) add(v uint64) {
	h.counts[v]++
	h.n++
	h.sum += float64(v)
}

func (h *hist) dist() Dist {
	d := Dist{Count: h.n}
	if h.n == 0 {
		return d
	}
	vals := make([]uint64, 0, len(h.counts))
	for v := range h.counts {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	d.Min, d.Max, d.Mean = vals[0], vals[len(vals)-1], h.sum/float64(h.n)
	d.P50, d.P99 = h.quantile(vals, 0.50), h.quantile(vals, 0.99)
	for _, v := range vals {
		lo, hi := bucketOf(v)
		if n := len(d.Histogram); n > 0 && d.Histogram[n-1].Lo == lo {
			d.Histogram[n-1].Count += h.counts[v]
			continue
		}
		d.Histogram = append(d.Histogram, Bucket{Lo: lo, Hi: hi, Count: h.counts[v]})
	}
	return d
}

// quantile is the smallest value with at least q of the samples at or below
// it (the nearest-rank definition).
func (h *hist) quantile(sorted []uint64, q float64) uint64 {
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for _, v := range sorted {
		seen += h.counts[v]
		if seen >= rank {
			return v
		}
	}
	return sorted[len(sorted)-1]
}

// bucketOf: 0, 1, 2-3, 4-7, 8-15, ...
func bucketOf(v uint64) (lo, hi uint64) {
	if v == 0 {
		return 0, 0
	}
	k := bits.Len64(v) - 1
	lo = 1 << k
	return lo, lo<<1 - 1
}
