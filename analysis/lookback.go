package analysis

import (
	"container/heap"

	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// A cycle window A-B keeps the spans open at A, starting there, as the
// exports and SQL's spans table do: when A > 0 and the trace has span
// formats, the span events before A are read too (the lookback), moving
// the open spans, the span trees and the complete spans still running at
// A without counting anything; at A (openWindow) what is still open begins
// there. Without it a span begun before A was an unmatched end, its
// duration missing, and its children's parents not found.

// windowed is the lookback's state.
type windowed struct {
	from  uint64 // A: events before it are the lookback's
	open  bool   // the window is open: events count
	early []earlyComplete
}

// earlyComplete is a complete span begun before the window that ends at or
// after its start (in it or past its end: as everywhere in stats, a complete
// span counts with its recorded end).
type earlyComplete struct {
	lane laneKey
	name string
	end  uint64
}

// hasSpans reports whether a format of r is a span's (its events may be
// open across the window's start).
func hasSpans(r *mmapio.Reader) bool {
	for _, f := range r.Formats() {
		if f.Kind >= schema.KindSpanBegin && f.Kind <= schema.KindSpanComplete || f.Kind == schema.KindAsyncBegin || f.Kind == schema.KindAsyncEnd {
			return true
		}
	}
	return false
}

// lookback moves the span state by an event before the window.
func (s *stater) lookback(ev *mmapio.Event, res spantree.Resolved) {
	fr := s.fmts[ev.FormatID]
	if fr == nil {
		return
	}
	c := ev.Cycle
	lk := s.laneOf(ev, fr)
	v := &s.view
	switch fr.f.Kind {
	case schema.KindAsyncBegin:
		if res.Node < 0 {
			return
		}
		s.async[res.Node] = openAsync{begin: c, unit: ev.UnitID, name: fr.name}
		if s.trees != nil {
			s.trees.begin(res.Node, res.Parent, ev.UnitID, fr.name, c)
		}
	case schema.KindAsyncEnd:
		if _, ok := s.async[res.Node]; !ok || res.Node < 0 {
			return
		}
		delete(s.async, res.Node)
		if s.trees != nil && res.Node < int64(len(s.trees.nodes)) {
			s.trees.nodes[res.Node].end = c
			s.trees.nodes[res.Node].gone = true
		}
	case schema.KindSpanComplete:
		dur, durType := uint64(0), schema.ArgUInt64
		if v.Has(fr.dur) {
			dur, durType = v.Uint(fr.dur), fr.f.ArgTypes[fr.dur]
		}
		if end, ok := schema.CompleteSpanEnd(c, dur, durType); ok && end >= s.win.from {
			s.win.early = append(s.win.early, earlyComplete{lane: lk, name: fr.name, end: end})
		}
	case schema.KindSpanBegin:
		s.push(lk, c)
	case schema.KindSpanEnd:
		if st := s.open[lk]; len(st) > 0 {
			s.open[lk] = st[:len(st)-1]
		}
	}
}

// openWindow begins at A what the lookback left open: its spans start
// there (their durations and occupancy are what the window shows of them,
// as SQL's dur is), the spans that ended before A leave the trees, and
// their children there become roots.
func (s *stater) openWindow() {
	w := &s.win
	if w.open {
		return
	}
	w.open = true
	a := w.from
	for lk, st := range s.open {
		for i := range st {
			st[i] = max(st[i], a)
			s.occStart(lk, a)
		}
	}
	for node, o := range s.async {
		o.begin = max(o.begin, a)
		s.async[node] = o
		s.occStart(laneKey{unit: o.unit}, a)
	}
	for _, e := range w.early {
		s.span(e.lane, e.name, a, e.end-a)
		s.occStart(e.lane, a)
		heap.Push(&s.ends, pending{cycle: e.end, lane: e.lane})
	}
	w.early = nil
	if s.trees != nil {
		s.trees.openWindow(a)
	}
}
