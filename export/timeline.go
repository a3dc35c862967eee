package export

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// sink is an output format. The driver calls it in timestamp order and
// declares every track before its first event in the current file.
type sink interface {
	declare(t *track) error
	// begin opens a slice: f and v are its format and arguments (nil, nil
	// when a span is begun again at a file split or a window's start),
	// flow its flow id, lk its parent and child arrows.
	begin(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error
	// end closes t's innermost slice; f and v are the arguments of the end
	// event (an async span's end may have some), or nil.
	end(ns uint64, t *track, f *fmtInfo, v *argview.View) error
	instant(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64, lk *links) error
	counter(ns uint64, t *track, f *fmtInfo, v *argview.View) error
	written() int64 // bytes in the current file
	split() error   // end the current file, start the next
	finish() error
	files() []string
}

// driver turns mmapio events, in cycle order, into sink calls: it keeps
// the span state, defers the ends of complete spans, and splits files.
type driver struct {
	sink      sink
	ts        *trackSet
	fmts      []*fmtInfo // by format id
	unknown   *fmtInfo
	nsPer     float64
	nsInt     uint64 // nsPer when it is a whole number, else 0
	gen       uint32 // current output file, from 1
	ends      endHeap
	pushes    uint64
	maxBytes  int64
	reopened  int64  // bytes of the current file that began again the spans open at its split
	last      uint64 // cycle of the last event or end written
	lastEvent uint64 // cycle of the last event
	started   bool
	muted     bool // reading the spans before the query's window (lookback): nothing is written
	hasSpans  bool // some format is a span
	view      argview.View
	res       *Result
	runOf     []uint16 // run of each unit id in a merged trace (flow ids per run); nil: one run
	start     uint64   // the window's first cycle (while muted)
	unitName  func(uint16) string

	// Async spans and parent links (trees.go): nil tree when no format
	// has an id or a parent.
	tree      *spantree.Orderer[mmapio.Event]
	kids      []uint32   // children per node, from the pre-pass (nil: no parent role)
	asyncOpen asyncRowOf // open async node -> its row
	treeView  argview.View
	lk        links // the current event's arrows (event, openWindow, split)

	// What the export holds while it reads (held.go).
	held      uint64 // events read, for the periodic check
	openBytes int64  // capacity of the tracks' open-span stacks
	heldLimit int64  // a quarter of the reader's memory budget

	// Time: with a time base (WithNsPerCycle not given), ticks become ns
	// through the unit's scale or the file's (timed); else cycle * nsPer.
	timed   bool
	nsWhole bool // no time base and nsInt ns per cycle: ns is cycle*nsInt
	fileNs  schema.Nanos
	unitNs  map[uint16]schema.Nanos // units with a clock of their own; nil when none or not timed
}

// newDriver makes a driver for r; its sink is set before run. timed: the
// trace's time bases give the timestamps (nsPerCycle those without one).
func newDriver(r *mmapio.Reader, nsPerCycle float64, timed bool, maxBytes int64, res *Result) *driver {
	d := &driver{
		ts: newTrackSet(r.Schema().SimulationName, r.Units()),

		unknown:  unknownFormat(),
		nsPer:    nsPerCycle,
		gen:      1,
		maxBytes: maxBytes,
		res:      res,
		fmts:     formatTable(r),
		unitName: r.UnitName,
	}
	if nsPerCycle == math.Trunc(nsPerCycle) && nsPerCycle < 1<<32 {
		d.nsInt = uint64(nsPerCycle)
	}
	if timed {
		sch := r.Schema()
		d.timed = !sch.TimeBase.IsZero() // else only some units have clocks; the others take nsPerCycle
		d.fileNs = schema.NewNanos(sch.TimeBase)
		for _, u := range sch.Units {
			if !u.TimeBase.IsZero() {
				if d.unitNs == nil {
					d.unitNs = map[uint16]schema.Nanos{}
				}
				d.unitNs[u.ID] = schema.NewNanos(u.TimeBase)
			}
		}
	}
	d.nsWhole = !d.timed && d.unitNs == nil && d.nsInt != 0
	for _, f := range d.fmts {
		if f != nil && (f.kind >= schema.KindSpanBegin && f.kind <= schema.KindSpanComplete || f.isAsync()) {
			d.hasSpans = true
		}
	}
	return d
}

func unknownFormat() *fmtInfo {
	return &fmtInfo{name: "[unknown format]", lane: -1, flow: -1, dur: -1, value: -1, spanID: -1, parent: -1}
}

// formatTable indexes r's formats by id.
func formatTable(r *mmapio.Reader) []*fmtInfo {
	var fmts []*fmtInfo
	symbols := r.Schema().Symbols
	for _, f := range r.Formats() {
		if f.ID >= 1<<24 {
			continue // no writer makes such ids; their events export as unknown
		}
		for int(f.ID) >= len(fmts) {
			fmts = append(fmts, nil)
		}
		if fmts[f.ID] == nil { // the first entry with an id wins, as in the original reader
			fmts[f.ID] = newFmtInfo(f, symbols)
		}
	}
	return fmts
}

// format returns the fmtInfo of an event.
func (d *driver) format(id uint32) *fmtInfo {
	if int(id) < len(d.fmts) && d.fmts[id] != nil {
		return d.fmts[id]
	}
	return d.unknown
}

// ns is the timestamp of a cycle of the unit of track t. Small enough to
// be inlined for the usual case, a whole number of ns per cycle.
func (d *driver) ns(t *track, cycle uint64) uint64 {
	if d.nsWhole {
		return cycle * d.nsInt
	}
	return d.nsScaled(t, cycle)
}

// nsScaled is ns with a time base, or a fraction of a ns per cycle. It
// counts the timestamps it rounds to a whole ns (Result.RoundedTimestamps):
// a time base under a nanosecond loses nothing when every time is whole.
func (d *driver) nsScaled(t *track, cycle uint64) uint64 {
	if d.unitNs != nil {
		if c, ok := d.unitNs[t.unit]; ok {
			return d.counted(c.OfWhole(cycle))
		}
	}
	if d.timed {
		return d.counted(d.fileNs.OfWhole(cycle))
	}
	if d.nsInt != 0 {
		return cycle * d.nsInt
	}
	x := float64(cycle) * d.nsPer
	v := math.Round(x)
	return d.counted(uint64(v), v == x)
}

// counted returns ns, counting it when it was rounded.
func (d *driver) counted(ns uint64, whole bool) uint64 {
	if !whole {
		d.res.RoundedTimestamps++
	}
	return ns
}

// ensure declares t (and its ancestors) in the current file.
func (d *driver) ensure(t *track) error {
	if t.gen == d.gen {
		return nil
	}
	if t.parent != nil {
		if err := d.ensure(t.parent); err != nil {
			return err
		}
	}
	t.gen = d.gen
	return d.sink.declare(t)
}

// run exports the events iq selects: iterQuery's query, which reads the
// spans before a window muted (lookback).
func (d *driver) run(r *mmapio.Reader, iq mmapio.Query, progress cyclewin.Reporter) error {
	it := r.Iter(iq)
	defer it.Close()
	handle := func(_ spantree.Info, ev mmapio.Event, res spantree.Resolved) error {
		return d.handle(&ev, res)
	}
	for it.Next() {
		ev := it.Event()
		var err error
		switch {
		case d.tree != nil:
			err = d.tree.Push(treeInfo(&ev, d.format(ev.FormatID), &d.treeView, d.runOf), ev, handle)
		case d.muted:
			err = d.handle(&ev, noTree)
		default:
			err = d.event(&ev, noTree)
		}
		if err != nil {
			return err
		}
		if d.held&heldCheckMask == 0 { // every few thousand events: see held.go
			if err := d.checkHeld(r, ev.Cycle); err != nil {
				return err
			}
		}
		d.held++
		if ev.Cycle < d.start { // the lookback before the window
			continue
		}
		d.res.Events++
		if progress.Active() && d.res.Events&0xFFFF == 0 {
			progress.Report(ev.Cycle)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if d.tree != nil {
		if err := d.tree.Flush(handle); err != nil {
			return err
		}
	}
	if d.muted { // nothing in the window: spans open across it still show
		if err := d.openWindow(d.start, noTree); err != nil {
			return err
		}
	}
	progress.Done()
	return d.close()
}

// iterQuery is the query run reads: q, or q from cycle 0 when spans may be
// open at the start of q's window: the events before it are read muted,
// so that the spans open at its first cycle A are known and begin there
// (lookback).
func (d *driver) iterQuery(q mmapio.Query) mmapio.Query {
	start, end, windowed := q.Cycles()
	if windowed && start > 0 && d.hasSpans {
		d.muted, d.start = true, start
		return q.WithCycles(0, end)
	}
	return q
}

// noTree is the resolution of an event when the trace has no span trees.
var noTree = spantree.Resolved{Node: -1, Parent: -1}

// handle takes one event (in the order the orderer hands them over).
func (d *driver) handle(ev *mmapio.Event, res spantree.Resolved) error {
	if d.muted {
		if ev.Cycle < d.start {
			d.lookback(ev, res, d.start)
			return nil
		}
		if err := d.openWindow(d.start, res); err != nil {
			return err
		}
	}
	return d.event(ev, res)
}

// lookback keeps the state of the spans that will still be open at the
// window's first cycle a, from an event before it, without writing
// anything: begins and ends of begin/end and async spans move the track's
// stack; complete spans that end before a are skipped (most of them: this
// is the cost of a lookback, a comparison per span), the others take their
// row (they all overlap at a, so they nest as they come) and wait for their
// end.
func (d *driver) lookback(ev *mmapio.Event, res spantree.Resolved, a uint64) {
	f := d.format(ev.FormatID)
	if f.kind < schema.KindSpanBegin || f.kind > schema.KindSpanComplete && !f.isAsync() {
		return
	}
	d.view.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
	v := &d.view
	switch f.kind {
	case schema.KindSpanBegin:
		t := d.explicitTrack(ev.UnitID, f, v)
		d.push(t, openSpan{f: f, row: t, node: -1})
	case schema.KindSpanEnd:
		t := d.explicitTrack(ev.UnitID, f, v)
		if len(t.open) > 0 {
			t.open = t.open[:len(t.open)-1]
		}
	case schema.KindSpanComplete:
		end, ok := d.completeEnd(ev, f, v)
		if !ok || end < a {
			return
		}
		t := d.completeRow(ev.UnitID, f, v, end)
		d.push(t, openSpan{f: f, end: end, row: t, node: -1})
		d.pushes++
		heap.Push(&d.ends, pendingEnd{cycle: end, seq: d.pushes, row: t})
	case schema.KindAsyncBegin:
		if res.Node >= 0 {
			t := d.ts.asyncRow(ev.UnitID)
			d.push(t, openSpan{f: f, row: t, node: res.Node})
			d.asyncOpen.set(res.Node, t)
		}
	case schema.KindAsyncEnd:
		if t := d.asyncOpen.get(res.Node); t != nil {
			d.closeAsync(t, res.Node)
		}
	}
}

// openWindow ends the lookback at the window's first cycle a: the spans
// still open begin at a, clipped, as at a file split (without their
// arguments, which are the begin's). cur is the event about to be written.
func (d *driver) openWindow(a uint64, cur spantree.Resolved) error {
	d.muted = false
	d.started, d.last, d.lastEvent = true, a, a
	for _, t := range d.ts.all {
		if len(t.open) == 0 {
			continue
		}
		if err := d.ensure(t); err != nil {
			return err
		}
		for _, s := range t.open {
			d.res.ClippedSpans++
			d.lk = d.rebegun(s, cur)
			if err := d.sink.begin(d.ns(t, a), t, s.f, nil, 0, &d.lk); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebegun is the arrows of a span begun again (a file split, a window's
// start): those to the children it has yet to have, the event about to be
// written (cur, which the orderer counted already) among them.
func (d *driver) rebegun(s openSpan, cur spantree.Resolved) links {
	lk := noLinks
	if s.node >= 0 && d.kids != nil && s.node < int64(len(d.kids)) {
		lk.node, lk.from, lk.to = s.node, d.tree.Children(s.node), d.kids[s.node]
		if cur.Parent == s.node && lk.from > 0 {
			lk.from--
		}
	}
	return lk
}

func (d *driver) event(ev *mmapio.Event, res spantree.Resolved) error {
	c := ev.Cycle
	// Files are cut only between cycles, before anything of the new cycle
	// (ends included) is written, once the file holds the limit's worth
	// beyond the spans it began again: open spans that alone pass the
	// limit would otherwise make a file per cycle, each holding them all.
	if d.started && d.maxBytes > 0 && c > d.lastEvent && d.sink.written()-d.reopened >= d.maxBytes {
		if err := d.split(c, res); err != nil {
			return err
		}
	}
	if err := d.flushEnds(c); err != nil {
		return err
	}
	d.started, d.last, d.lastEvent = true, max(d.last, c), c
	f := d.format(ev.FormatID)
	d.view.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
	v := &d.view
	flow := uint64(0)
	if v.Has(f.flow) {
		flow = v.Uint(f.flow)
		if flow != 0 {
			d.res.FlowEvents++
			if d.runOf != nil {
				flow = runs.FlowID(d.runOf[ev.UnitID], flow)
			}
		}
	}
	// The arrows, in the driver: a local whose address goes to the sink
	// (an interface) would be allocated per event.
	d.lk = noLinks
	lk := &d.lk
	if res.Parent >= 0 {
		lk.in = edgeFlow(res.Parent, res.Child)
		d.res.ParentLinks++
	} else if res.Missing {
		d.res.ParentsMissing++
	}
	switch f.kind {
	case schema.KindSpanBegin:
		t := d.explicitTrack(ev.UnitID, f, v)
		if err := d.ensure(t); err != nil {
			return err
		}
		d.push(t, openSpan{f: f, flow: flow, row: t, node: -1})
		d.res.Spans++
		return d.sink.begin(d.ns(t, c), t, f, v, flow, lk)
	case schema.KindSpanEnd:
		t := d.explicitTrack(ev.UnitID, f, v)
		if len(t.open) == 0 {
			d.res.UnmatchedEnds++ // an end without a begin (the begin was before the window, say)
			return nil
		}
		if err := d.ensure(t); err != nil {
			return err
		}
		t.open = t.open[:len(t.open)-1]
		return d.sink.end(d.ns(t, c), t, nil, nil)
	case schema.KindSpanComplete:
		end, ok := d.completeEnd(ev, f, v)
		if !ok {
			return nil
		}
		t := d.completeRow(ev.UnitID, f, v, end)
		if err := d.ensure(t); err != nil {
			return err
		}
		d.push(t, openSpan{f: f, flow: flow, end: end, row: t, node: -1})
		d.pushes++
		heap.Push(&d.ends, pendingEnd{cycle: end, seq: d.pushes, row: t})
		d.res.Spans++
		return d.sink.begin(d.ns(t, c), t, f, v, flow, lk)
	case schema.KindAsyncBegin:
		if res.Node < 0 { // no orderer: cannot happen, the format has an id
			break
		}
		t := d.ts.asyncRow(ev.UnitID)
		if err := d.ensure(t); err != nil {
			return err
		}
		d.push(t, openSpan{f: f, flow: flow, row: t, node: res.Node})
		d.asyncOpen.set(res.Node, t)
		if d.kids != nil && res.Node < int64(len(d.kids)) {
			lk.node, lk.to = res.Node, d.kids[res.Node]
		}
		d.res.Spans++
		d.res.AsyncSpans++
		return d.sink.begin(d.ns(t, c), t, f, v, flow, lk)
	case schema.KindAsyncEnd:
		t := d.asyncOpen.get(res.Node)
		if t == nil {
			d.res.UnmatchedEnds++ // an end without a begin
			return nil
		}
		if err := d.ensure(t); err != nil {
			return err
		}
		d.closeAsync(t, res.Node)
		return d.sink.end(d.ns(t, c), t, f, v)
	case schema.KindCounter:
		t := d.ts.counter(ev.UnitID, f)
		if err := d.ensure(t); err != nil {
			return err
		}
		d.res.Counters++
		return d.sink.counter(d.ns(t, c), t, f, v)
	}
	t := d.ts.unit(ev.UnitID)
	if res.Node >= 0 { // an instant of an open async span: on its row
		if row := d.asyncOpen.get(res.Node); row != nil {
			t = row
		}
	}
	if err := d.ensure(t); err != nil {
		return err
	}
	d.res.Instants++
	return d.sink.instant(d.ns(t, c), t, f, v, flow, lk)
}

// asyncRowOf is the row of each open async span, by node: nodes are
// numbered in order, and a slice costs 8 bytes a span where a map's insert
// and delete per span cost a cache miss each.
type asyncRowOf struct {
	rows []*track
}

func (a *asyncRowOf) get(node int64) *track {
	if node < 0 || node >= int64(len(a.rows)) {
		return nil
	}
	return a.rows[node]
}

func (a *asyncRowOf) set(node int64, t *track) {
	for node >= int64(len(a.rows)) {
		a.rows = append(a.rows, nil)
	}
	a.rows[node] = t
}

// closeAsync takes async span node off its row and frees the row.
func (d *driver) closeAsync(t *track, node int64) {
	d.asyncOpen.set(node, nil)
	if n := len(t.open); n > 0 {
		t.open = t.open[:n-1]
	}
	d.ts.freeRow(t)
}

// lane returns the lane of a span event (the unit's own track when the
// format has no lane argument).
func (d *driver) lane(unit uint16, f *fmtInfo, v *argview.View) *lane {
	if v.Has(f.lane) {
		return d.ts.lane(unit, true, v.Uint(f.lane))
	}
	return d.ts.lane(unit, false, 0)
}

// explicitTrack is where begin/end spans of a lane go: the lane's track,
// unless complete spans took it first. Keeping the two kinds apart keeps
// every track properly nested whatever the order of ends.
func (d *driver) explicitTrack(unit uint16, f *fmtInfo, v *argview.View) *track {
	l := d.lane(unit, f, v)
	if l.explicit == nil {
		if l.baseUse != useComplete {
			l.baseUse, l.explicit = useExplicit, l.rows[0]
		} else {
			l.explicit = d.ts.addRow(l, "spans")
		}
	}
	return l.explicit
}

// completeRow picks the row of a complete span ending at end: the first
// row whose innermost open span ends at or after it (so it nests), or a new
// row.
func (d *driver) completeRow(unit uint16, f *fmtInfo, v *argview.View, end uint64) *track {
	l := d.lane(unit, f, v)
	for i, row := range l.rows {
		if i == 0 {
			if l.baseUse == useExplicit {
				continue
			}
			l.baseUse = useComplete
		} else if row == l.explicit {
			continue
		}
		if n := len(row.open); n == 0 || row.open[n-1].end >= end {
			return row
		}
	}
	return d.ts.addRow(l, "")
}

// flushEnds writes the ends of complete spans that end at or before cycle.
func (d *driver) flushEnds(cycle uint64) error {
	for len(d.ends) > 0 && d.ends[0].cycle <= cycle {
		e := heap.Pop(&d.ends).(pendingEnd)
		row := e.row
		if n := len(row.open); n == 0 || row.open[n-1].end != e.cycle {
			return fmt.Errorf("export: internal error: span rows out of order on track %q", row.name)
		}
		row.open = row.open[:len(row.open)-1]
		if err := d.ensure(row); err != nil {
			return err
		}
		d.last = max(d.last, e.cycle)
		if err := d.sink.end(d.ns(row, e.cycle), row, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// split ends the current file at cycle c, before the event cur: open spans
// are closed there and reopened at the same time in the next file, which
// declares its tracks again, so each file stands alone.
func (d *driver) split(c uint64, cur spantree.Resolved) error {
	for _, t := range d.ts.all {
		for i := len(t.open) - 1; i >= 0; i-- {
			if err := d.sink.end(d.ns(t, c), t, nil, nil); err != nil {
				return err
			}
		}
	}
	if err := d.sink.split(); err != nil {
		return err
	}
	d.gen++
	for _, t := range d.ts.all {
		if len(t.open) == 0 {
			continue
		}
		if err := d.ensure(t); err != nil {
			return err
		}
		for _, s := range t.open {
			d.lk = d.rebegun(s, cur)
			if err := d.sink.begin(d.ns(t, c), t, s.f, nil, 0, &d.lk); err != nil {
				return err
			}
		}
	}
	d.reopened = d.sink.written()
	return nil
}

// close ends complete spans at their times, closes the begin/end spans
// still open at the last timestamp (counted), and finishes the output.
func (d *driver) close() error {
	// Spans begun and never ended (in the window) close at the last event
	// exported, not at the far end of a complete span that may lie well
	// past it on another track: their length is unknown, not that long.
	// One nested inside a complete span still open then closes with it.
	closeAt := d.last
	if err := d.flushEnds(closeAt); err != nil {
		return err
	}
	for _, t := range d.ts.all {
		if err := d.closeBegun(t, closeAt); err != nil {
			return err
		}
	}
	for len(d.ends) > 0 {
		e := d.ends[0]
		if err := d.closeBegun(e.row, e.cycle); err != nil {
			return err
		}
		if err := d.flushEnds(e.cycle); err != nil {
			return err
		}
	}
	return d.sink.finish()
}

// closeBegun ends, at cycle c, the begin/end and async spans on top of t's
// stack.
func (d *driver) closeBegun(t *track, c uint64) error {
	for n := len(t.open); n > 0 && t.open[n-1].end == 0; n = len(t.open) {
		t.open = t.open[:n-1]
		d.res.UnterminatedSpans++
		if err := d.sink.end(d.ns(t, c), t, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// pendingEnd is the end of a complete span, waiting for its time.
type pendingEnd struct {
	cycle uint64
	seq   uint64 // push order: of two ends at one cycle the later push (inner span) goes first
	row   *track
}

type endHeap []pendingEnd

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	if h[i].cycle != h[j].cycle {
		return h[i].cycle < h[j].cycle
	}
	return h[i].seq > h[j].seq
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(pendingEnd)) }
func (h *endHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
