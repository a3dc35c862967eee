//go:build cgo

package tracesql

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// spanScan fills the spans table. Pairing a begin with its end needs the
// events in cycle order, so it reads each trace with an ordered iteration
// (mmapio decodes ahead on its own goroutines), on one DuckDB thread: a span
// is a row when its end is seen. Begin/end spans nest per unit and lane, as
// in stats and the exports; a complete span is a row at once.
//
// A cycle window A-B keeps the spans open at A, starting there, as the
// exports do: the span events before A are read too (lookback), moving the
// open spans without making rows, when A > 0 and the trace has span
// formats.
type spanScan struct {
	d    *DB
	cols []Column
	sels []selection
	proj []int

	ti    int // trace being read
	it    *mmapio.Iterator
	roles []*spanRole // by format id (nil: not a span format)
	open  map[laneKey]*[]openSpan
	view  argview.View
	pend  []spanRow // rows found but not yet written (a chunk filled up)
	from  uint64    // the window's first cycle: spans open at it start there
	last  uint64    // the cycle of the last event read at or after from
	read  bool      // an event was read at or after from

	// Async spans and parents (when a format has the id or parent role):
	// the orderer the exporters and the statistics use pairs begins and ends
	// and resolves parent ids to nodes.
	order   *spantree.Orderer[treeEvent]
	emit    spantree.Emit[treeEvent]
	async   map[int64]openSpan // open async spans by node
	nodeSeq []uint64           // every node's begin's seq (8 bytes a span)
}

type spanRole struct {
	kind                        schema.EventKind
	name                        string
	types                       []schema.ArgType
	lane, flow, dur, id, parent int // argument indexes, -1: none
}

// info describes an event of the role to the span orderer; v holds its
// arguments.
func (r *spanRole) info(ev *mmapio.Event, v *argview.View) spantree.Info {
	in := spantree.Info{Cycle: ev.Cycle, Unit: ev.UnitID}
	if v.Has(r.id) {
		in.ID = v.Uint(r.id)
		if r.kind == schema.KindAsyncBegin {
			in.Kind = spantree.Begin
		} else {
			in.Kind = spantree.End
		}
	}
	if v.Has(r.parent) {
		in.Parent = v.Uint(r.parent)
	}
	return in
}

// tree reports whether the role's events go through the span trees: an
// async begin or end, or a begin with a parent.
func (r *spanRole) tree() bool { return r.id >= 0 || r.parent >= 0 }

type laneKey struct {
	unit uint16
	lane uint64
}

type openSpan struct {
	start  uint64
	flow   uint64
	has    bool // flow is set
	role   *spanRole
	seq    uint64 // its begin's
	id     uint64 // async: its id
	parent int64  // the seq of its parent's begin, -1: none
	lane   uint64
	unit   uint16 // async: its unit
}

// treeEvent is an event handed to the span orderer, with its seq.
type treeEvent struct {
	ev  mmapio.Event
	seq uint64
}

// spanRow is a span found, its strings by reference: the trace's index,
// the unit's id, the role (its name).
type spanRow struct {
	ti         int
	unit       uint16
	role       *spanRole
	lane       uint64
	start, end uint64
	flow       uint64
	hasFlow    bool
	seq        uint64 // the begin's (the span's number)
	id         uint64
	hasID      bool
	parent     int64 // the parent's seq, -1: none
}

func (d *DB) newSpanScan(cols []Column, sels []selection) *spanScan {
	return &spanScan{d: d, cols: cols, sels: sels}
}

func (s *spanScan) columns() []Column           { return s.cols }
func (s *spanScan) cardinality() (uint64, bool) { return 0, false }
func (s *spanScan) threads() int                { return 1 }
func (s *spanScan) local() scanThread           { return s }
func (s *spanScan) start(cols []int) (execution, error) {
	r := &spanScan{d: s.d, cols: s.cols, sels: s.sels, proj: cols}
	return r, nil
}

func queryOf(s *selection) mmapio.Query {
	q := mmapio.Query{}
	if s.cycles != nil {
		h := s.hull()
		q = q.WithCycles(h.lo, h.hi)
	}
	if ids := s.unitIDs(); ids != nil {
		q = q.WithUnits(ids...)
	}
	return q
}

// spanName names a span or counter: the format's recorded name, else its
// text.
func spanName(f *mmapio.Format) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Format.Format
}

func counterName(f *mmapio.Format) string { return spanName(f) }

// spanRoles returns the span formats of r by format id (nil when it has
// none).
func spanRoles(r *mmapio.Reader) []*spanRole {
	var m []*spanRole
	for _, f := range r.Formats() {
		if r.Format(f.ID) != f || (f.Kind < schema.KindSpanBegin || f.Kind > schema.KindSpanComplete) && f.Kind != schema.KindAsyncBegin && f.Kind != schema.KindAsyncEnd {
			continue
		}
		if int(f.ID) >= len(m) {
			m = append(m, make([]*spanRole, int(f.ID)+1-len(m))...)
		}
		sr := &spanRole{kind: f.Kind, name: spanName(f), types: f.ArgTypes, lane: -1, flow: -1, dur: -1, id: -1, parent: -1}
		for i := range f.ArgTypes {
			switch f.Role(i) {
			case schema.RoleID:
				if f.Kind == schema.KindAsyncBegin || f.Kind == schema.KindAsyncEnd {
					sr.id = i
				}
			case schema.RoleParent:
				if f.Kind == schema.KindAsyncBegin || f.Kind == schema.KindSpanBegin || f.Kind == schema.KindSpanComplete {
					sr.parent = i
				}
			case schema.RoleLane:
				sr.lane = i
			case schema.RoleFlow:
				sr.flow = i
			case schema.RoleDuration:
				sr.dur = i
			}
		}
		m[f.ID] = sr
	}
	return m
}

func (s *spanScan) fill(out *chunk) error {
	capacity := vectorSize
	for len(s.pend) < capacity {
		if s.it == nil {
			if s.ti >= len(s.d.traces) {
				break
			}
			t := s.d.traces[s.ti]
			s.roles = spanRoles(t.r)
			s.open = map[laneKey]*[]openSpan{}
			if len(s.roles) == 0 {
				s.ti++
				continue
			}
			q := queryOf(&s.sels[s.ti])
			s.from, s.last, s.read = 0, 0, false
			if a, b, windowed := q.Cycles(); windowed && a > 0 {
				s.from = a
				q = q.WithCycles(0, b) // the lookback
			}
			s.order, s.async, s.nodeSeq = nil, nil, s.nodeSeq[:0]
			for _, r := range s.roles {
				if r != nil && r.tree() {
					s.order = spantree.NewOrderer[treeEvent]()
					s.order.Clone = func(e treeEvent) treeEvent { return treeEvent{e.ev.Clone(), e.seq} }
					s.async = map[int64]openSpan{}
					s.emit = func(_ spantree.Info, e treeEvent, res spantree.Resolved) error {
						s.event(&e.ev, e.seq, res)
						return nil
					}
					break
				}
			}
			s.it = t.r.Iter(q)
		}
		if !s.it.Next() {
			err := s.it.Err()
			if err == nil && s.order != nil {
				err = s.order.Flush(s.emit)
			}
			if err == nil {
				s.closeOpen()
			}
			s.it.Close()
			s.it = nil
			s.ti++
			if err != nil {
				return err
			}
			continue
		}
		ev := s.it.Event()
		if ev.Cycle >= s.from {
			s.last, s.read = max(s.last, ev.Cycle), true
		}
		seq := uint64(ev.Block)<<32 | uint64(rawread.Index(s.it))
		if s.order == nil {
			s.event(&ev, seq, noTree)
			continue
		}
		if int(ev.FormatID) >= len(s.roles) || s.roles[ev.FormatID] == nil {
			continue
		}
		sr := s.roles[ev.FormatID]
		s.view.Reset(sr.types, ev.RawArgs(), int(ev.ArgCount))
		if err := s.order.Push(sr.info(&ev, &s.view), treeEvent{ev, seq}, s.emit); err != nil {
			return err
		}
	}
	n := min(len(s.pend), capacity)
	for row := range n {
		s.write(out, row, &s.pend[row])
	}
	s.pend = append(s.pend[:0], s.pend[n:]...)
	out.setSize(n)
	return nil
}

// noTree is the resolution of an event with no span trees.
var noTree = spantree.Resolved{Node: -1, Parent: -1}

// event takes a span event (seq: its place in the file; res: what the span
// orderer resolved, noTree without one).
func (s *spanScan) event(ev *mmapio.Event, seq uint64, res spantree.Resolved) {
	if int(ev.FormatID) >= len(s.roles) {
		return
	}
	sr := s.roles[ev.FormatID]
	if sr == nil {
		return
	}
	v := &s.view
	v.Reset(sr.types, ev.RawArgs(), int(ev.ArgCount))
	lk := laneKey{unit: ev.UnitID}
	if v.Has(sr.lane) {
		lk.lane = v.Uint(sr.lane)
	}
	var flow uint64
	if v.Has(sr.flow) {
		flow = v.Uint(sr.flow)
	}
	parent := int64(-1)
	if res.Parent >= 0 && res.Parent < int64(len(s.nodeSeq)) {
		parent = int64(s.nodeSeq[res.Parent])
	}
	switch sr.kind {
	case schema.KindAsyncBegin:
		if res.Node < 0 {
			return
		}
		for int64(len(s.nodeSeq)) <= res.Node {
			s.nodeSeq = append(s.nodeSeq, 0)
		}
		s.nodeSeq[res.Node] = seq
		s.async[res.Node] = openSpan{start: ev.Cycle, flow: flow, has: flow != 0, role: sr, seq: seq, id: v.Uint(sr.id), parent: parent, lane: lk.lane, unit: ev.UnitID}
	case schema.KindAsyncEnd:
		b, ok := s.async[res.Node]
		if !ok {
			return // its begin lies before the selection
		}
		delete(s.async, res.Node)
		if ev.Cycle < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: ev.UnitID, role: b.role, lane: b.lane, start: max(b.start, s.from), end: ev.Cycle,
			flow: b.flow, hasFlow: b.has, seq: b.seq, id: b.id, hasID: true, parent: b.parent})
	case schema.KindSpanComplete:
		dur := uint64(0)
		if v.Has(sr.dur) {
			dur = v.Uint(sr.dur)
		}
		if ev.Cycle+dur < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: ev.UnitID, role: sr, lane: lk.lane, start: max(ev.Cycle, s.from), end: ev.Cycle + dur,
			flow: flow, hasFlow: flow != 0, seq: seq, parent: parent})
	case schema.KindSpanBegin:
		st := s.open[lk]
		if st == nil {
			st = new([]openSpan)
			s.open[lk] = st
		}
		*st = append(*st, openSpan{start: ev.Cycle, flow: flow, has: flow != 0, role: sr, seq: seq, parent: parent})
	case schema.KindSpanEnd:
		st := s.open[lk]
		if st == nil || len(*st) == 0 {
			return // its begin lies before the selection
		}
		b := (*st)[len(*st)-1]
		*st = (*st)[:len(*st)-1]
		if ev.Cycle < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: ev.UnitID, role: b.role, lane: lk.lane, start: max(b.start, s.from), end: ev.Cycle,
			flow: b.flow, hasFlow: b.has, seq: b.seq, parent: b.parent})
	}
}

// closeOpen ends the begin/end and async spans still open when the trace's
// selection ends (the window's end, or the trace's) at the last event read
// in it, as the exports close them: a span is a row whether or not its end
// was selected, and its duration is then what the selection shows of it.
// A span open at the window's start that no event in the window follows
// ends where it starts (the window's first cycle). Rows go in the order of
// their begins.
func (s *spanScan) closeOpen() {
	at := s.last
	if !s.read {
		at = s.from
	}
	n := len(s.pend)
	for lk, st := range s.open {
		for _, b := range *st {
			s.pend = append(s.pend, spanRow{ti: s.ti, unit: lk.unit, role: b.role, lane: lk.lane, start: max(b.start, s.from), end: max(at, b.start, s.from),
				flow: b.flow, hasFlow: b.has, seq: b.seq, parent: b.parent})
		}
	}
	for _, b := range s.async {
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: b.unit, role: b.role, lane: b.lane, start: max(b.start, s.from), end: max(at, b.start, s.from),
			flow: b.flow, hasFlow: b.has, seq: b.seq, id: b.id, hasID: true, parent: b.parent})
	}
	slices.SortFunc(s.pend[n:], func(a, b spanRow) int { return cmp.Compare(a.seq, b.seq) })
	clear(s.open)
	clear(s.async)
}

// write writes r into row of the chunk: each column the query reads, with
// no boxing (a span is a row of a few stores).
func (s *spanScan) write(out *chunk, row int, r *spanRow) {
	t := s.d.traces[r.ti]
	off := 0
	if s.d.multi {
		off = 1
	}
	for oc, c := range s.proj {
		if c < 0 {
			continue
		}
		switch c - off {
		case -1:
			out.setString(oc, row, unsafe.Slice(unsafe.StringData(t.name), len(t.name))) // read only
		case 0:
			out.setString(oc, row, t.unitName(r.unit))
		case 1:
			column[uint64](out, oc)[row] = r.lane
		case 2:
			out.setString(oc, row, unsafe.Slice(unsafe.StringData(r.role.name), len(r.role.name))) // read only
		case 3:
			column[uint64](out, oc)[row] = r.start
		case 4:
			column[uint64](out, oc)[row] = r.end
		case 5:
			column[uint64](out, oc)[row] = r.end - r.start
		case 6:
			if r.hasFlow {
				column[uint64](out, oc)[row] = r.flow
			} else {
				out.setNull(oc, row)
			}
		case 7:
			column[uint64](out, oc)[row] = r.seq
		case 8:
			if r.hasID {
				column[uint64](out, oc)[row] = r.id
			} else {
				out.setNull(oc, row)
			}
		case 9:
			if r.parent >= 0 {
				column[uint64](out, oc)[row] = uint64(r.parent)
			} else {
				out.setNull(oc, row)
			}
		}
	}
}
