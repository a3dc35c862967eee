package export

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// sink is an output format. The driver calls it in timestamp order and
// declares every track before its first event in the current file.
type sink interface {
	declare(t *track) error
	begin(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64) error
	end(ns uint64, t *track) error
	instant(ns uint64, t *track, f *fmtInfo, v *argview.View, flow uint64) error
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
	last      uint64 // cycle of the last event or end written
	lastEvent uint64 // cycle of the last event
	started   bool
	muted     bool // reading the spans before the query's window (lookback): nothing is written
	hasSpans  bool // some format is a span
	view      argview.View
	res       *Result
	runOf     []uint16 // run of each unit id in a merged trace (flow ids per run); nil: one run
}

// newDriver makes a driver for r; its sink is set before run.
func newDriver(r *mmapio.Reader, nsPerCycle float64, maxBytes int64, res *Result) *driver {
	d := &driver{
		ts: newTrackSet(r.Schema().SimulationName, r.Units()),

		unknown:  unknownFormat(),
		nsPer:    nsPerCycle,
		gen:      1,
		maxBytes: maxBytes,
		res:      res,
		fmts:     formatTable(r),
	}
	if nsPerCycle == math.Trunc(nsPerCycle) && nsPerCycle < 1<<32 {
		d.nsInt = uint64(nsPerCycle)
	}
	for _, f := range d.fmts {
		if f != nil && f.kind >= schema.KindSpanBegin && f.kind <= schema.KindSpanComplete {
			d.hasSpans = true
		}
	}
	return d
}

func unknownFormat() *fmtInfo {
	return &fmtInfo{name: "[unknown format]", lane: -1, flow: -1, dur: -1, value: -1}
}

// formatTable indexes r's formats by id.
func formatTable(r *mmapio.Reader) []*fmtInfo {
	var fmts []*fmtInfo
	for _, f := range r.Formats() {
		if f.ID >= 1<<24 {
			continue // no writer makes such ids; their events export as unknown
		}
		for int(f.ID) >= len(fmts) {
			fmts = append(fmts, nil)
		}
		if fmts[f.ID] == nil { // the first entry with an id wins, as in the original reader
			fmts[f.ID] = newFmtInfo(f)
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

func (d *driver) ns(cycle uint64) uint64 {
	if d.nsInt != 0 {
		return cycle * d.nsInt
	}
	return uint64(math.Round(float64(cycle) * d.nsPer))
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

// run exports the events q selects. When q starts at a cycle A > 0 and the
// trace has spans, it reads from cycle 0 with the writing muted up to A, so
// that the spans open at A are known and begin there (lookback).
func (d *driver) run(r *mmapio.Reader, q mmapio.Query, progress cyclewin.Reporter) error {
	start, end, windowed := q.Cycles()
	iq := q
	if windowed && start > 0 && d.hasSpans {
		iq, d.muted = q.WithCycles(0, end), true
	}
	it := r.Iter(iq)
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		if d.muted {
			if ev.Cycle < start {
				d.lookback(&ev, start)
				continue
			}
			if err := d.openWindow(start); err != nil {
				return err
			}
		}
		if err := d.event(&ev); err != nil {
			return err
		}
		d.res.Events++
		if progress.Active() && d.res.Events&0xFFFF == 0 {
			progress.Report(ev.Cycle)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if d.muted { // nothing in the window: spans open across it still show
		if err := d.openWindow(start); err != nil {
			return err
		}
	}
	progress.Done()
	return d.close()
}

// lookback keeps the state of the spans that will still be open at the
// window's first cycle a, from an event before it, without writing
// anything: begins and ends of begin/end spans move the track's stack;
// complete spans that end before a are skipped (most of them: this is the
// cost of a lookback, a comparison per span), the others take their row
// (they all overlap at a, so they nest as they come) and wait for their end.
func (d *driver) lookback(ev *mmapio.Event, a uint64) {
	f := d.format(ev.FormatID)
	if f.kind < schema.KindSpanBegin || f.kind > schema.KindSpanComplete {
		return
	}
	d.view.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
	v := &d.view
	c := ev.Cycle
	switch f.kind {
	case schema.KindSpanBegin:
		t := d.explicitTrack(ev.UnitID, f, v)
		t.open = append(t.open, openSpan{f: f, row: t})
	case schema.KindSpanEnd:
		t := d.explicitTrack(ev.UnitID, f, v)
		if len(t.open) > 0 {
			t.open = t.open[:len(t.open)-1]
		}
	case schema.KindSpanComplete:
		dur := uint64(0)
		if v.Has(f.dur) {
			dur = v.Uint(f.dur)
		}
		if c+dur < a {
			return
		}
		t := d.completeRow(ev.UnitID, f, v, c+dur)
		t.open = append(t.open, openSpan{f: f, end: c + dur, row: t})
		d.pushes++
		heap.Push(&d.ends, pendingEnd{cycle: c + dur, seq: d.pushes, row: t})
	}
}

// openWindow ends the lookback at the window's first cycle a: the spans
// still open begin at a, clipped, as at a file split (without their
// arguments, which are the begin's).
func (d *driver) openWindow(a uint64) error {
	d.muted = false
	d.started, d.last, d.lastEvent = true, a, a
	ns := d.ns(a)
	for _, t := range d.ts.all {
		if len(t.open) == 0 {
			continue
		}
		if err := d.ensure(t); err != nil {
			return err
		}
		for _, s := range t.open {
			d.res.ClippedSpans++
			if err := d.sink.begin(ns, t, s.f, nil, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *driver) event(ev *mmapio.Event) error {
	c := ev.Cycle
	// Files are cut only between cycles, before anything of the new cycle
	// (ends included) is written.
	if d.started && d.maxBytes > 0 && c > d.lastEvent && d.sink.written() >= d.maxBytes {
		if err := d.split(c); err != nil {
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
	ns := d.ns(c)
	switch f.kind {
	case schema.KindSpanBegin:
		t := d.explicitTrack(ev.UnitID, f, v)
		if err := d.ensure(t); err != nil {
			return err
		}
		t.open = append(t.open, openSpan{f: f, flow: flow, row: t})
		d.res.Spans++
		return d.sink.begin(ns, t, f, v, flow)
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
		return d.sink.end(ns, t)
	case schema.KindSpanComplete:
		dur := uint64(0)
		if v.Has(f.dur) {
			dur = v.Uint(f.dur)
		}
		t := d.completeRow(ev.UnitID, f, v, c+dur)
		if err := d.ensure(t); err != nil {
			return err
		}
		t.open = append(t.open, openSpan{f: f, flow: flow, end: c + dur, row: t})
		d.pushes++
		heap.Push(&d.ends, pendingEnd{cycle: c + dur, seq: d.pushes, row: t})
		d.res.Spans++
		return d.sink.begin(ns, t, f, v, flow)
	case schema.KindCounter:
		t := d.ts.counter(ev.UnitID, f)
		if err := d.ensure(t); err != nil {
			return err
		}
		d.res.Counters++
		return d.sink.counter(ns, t, f, v)
	}
	t := d.ts.unit(ev.UnitID)
	if err := d.ensure(t); err != nil {
		return err
	}
	d.res.Instants++
	return d.sink.instant(ns, t, f, v, flow)
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
		if err := d.sink.end(d.ns(e.cycle), row); err != nil {
			return err
		}
	}
	return nil
}

// split ends the current file at cycle c: open spans are closed there and
// reopened at the same time in the next file, which declares its tracks
// again, so each file stands alone.
func (d *driver) split(c uint64) error {
	ns := d.ns(c)
	for _, t := range d.ts.all {
		for i := len(t.open) - 1; i >= 0; i-- {
			if err := d.sink.end(ns, t); err != nil {
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
			if err := d.sink.begin(ns, t, s.f, nil, 0); err != nil {
				return err
			}
		}
	}
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

// closeBegun ends, at cycle c, the begin/end spans on top of t's stack.
func (d *driver) closeBegun(t *track, c uint64) error {
	for n := len(t.open); n > 0 && t.open[n-1].end == 0; n = len(t.open) {
		t.open = t.open[:n-1]
		d.res.UnterminatedSpans++
		if err := d.sink.end(d.ns(c), t); err != nil {
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
