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
// events in cycle order: when the units can be read apart, each DuckDB
// thread reads a unit at a time (spanpar.go); otherwise the scan reads each
// trace with an ordered iteration (mmapio decodes ahead on its own
// goroutines), on one DuckDB thread. A span is a row when its end is seen. Begin/end spans nest per unit and lane, as
// in stats and the exports; a complete span is a row at once.
//
// A cycle window A-B keeps the spans open at A, starting there, as the
// exports do: the span events before A are read too (lookback), moving the
// open spans without making rows, when A > 0 and the trace has span
// formats.
type spanScan struct {
	spanPairs
	sels []selection

	it *mmapio.Iterator

	// Async spans and parents (when a format has the id or parent role):
	// the orderer the exporters and the statistics use pairs begins and ends
	// and resolves parent ids to nodes.
	order *spantree.Orderer[treeEvent]
	emit  spantree.Emit[treeEvent]
}

// spanPairs pairs the span events of one trace, read in cycle order, into
// rows: the serial scan's for every trace, a parallel thread's for the
// units it reads.
type spanPairs struct {
	d     *DB
	cols  []Column
	proj  []int
	ti    int         // trace being read
	roles []*spanRole // by format id (nil: not a span format)
	open  openSpans
	view  argview.View
	pend  []spanRow // rows found but not yet written (a chunk filled up)
	from  uint64    // the window's first cycle: spans open at it start there
	last  uint64    // the cycle of the last event read at or after from
	read  bool      // an event was read at or after from

	async   map[int64]openSpan // open async spans by node (the span orderer's)
	ua      unitAsync          // open async spans by id, of the one unit a parallel thread reads (spanpar.go)
	nodeSeq []uint64           // every node's begin's seq (8 bytes a span)
	nOpen   int64              // spans open here (spanopen.go)
	err     error              // sticky: too many spans open (spanopen.go)
}

// spanEvent is what pairing reads of an event.
type spanEvent struct {
	cycle uint64
	fid   uint32
	unit  uint16
	argc  uint8
	args  []byte
}

type spanRole struct {
	kind                        schema.EventKind
	name                        string
	types                       []schema.ArgType
	lane, flow, dur, id, parent int // argument indexes, -1: none
	need                        int // the arguments up to the last of them
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

// openSpans holds the open begin/end spans of each unit and lane, a stack
// each: a lane below denseLanes is an index into its unit's slice (the
// lanes an adapter allocates count from 0), any other a map's key.
type openSpans struct {
	dense  [][]*[]openSpan // by unit, then lane
	sparse map[laneKey]*[]openSpan
}

const denseLanes = 1 << 10

func (o *openSpans) reset() { o.dense, o.sparse = nil, nil }

// each calls f with every lane's stack.
func (o *openSpans) each(f func(laneKey, *[]openSpan)) {
	for u, lanes := range o.dense {
		for l, st := range lanes {
			if st != nil && len(*st) > 0 {
				f(laneKey{unit: uint16(u), lane: uint64(l)}, st)
			}
		}
	}
	for lk, st := range o.sparse {
		if len(*st) > 0 {
			f(lk, st)
		}
	}
}

// stack returns the stack of lk, made when create (else nil when none).
func (o *openSpans) stack(lk laneKey, create bool) *[]openSpan {
	if lk.lane >= denseLanes {
		st := o.sparse[lk]
		if st == nil && create {
			if o.sparse == nil {
				o.sparse = map[laneKey]*[]openSpan{}
			}
			st = new([]openSpan)
			o.sparse[lk] = st
		}
		return st
	}
	u, l := int(lk.unit), int(lk.lane)
	if u >= len(o.dense) || l >= len(o.dense[u]) {
		if !create {
			return nil
		}
		if u >= len(o.dense) {
			o.dense = append(o.dense, make([][]*[]openSpan, u+1-len(o.dense))...)
		}
		o.dense[u] = append(o.dense[u], make([]*[]openSpan, l+1-len(o.dense[u]))...)
	}
	st := o.dense[u][l]
	if st == nil && create {
		st = new([]openSpan)
		o.dense[u][l] = st
	}
	return st
}

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
	pid    uint64 // the parent id its begin recorded (0: none)
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
	parent     int64  // the parent's seq, -1: none
	parentID   uint64 // the parent id the begin recorded (0: none)
}

func (d *DB) newSpanScan(cols []Column, sels []selection) *spanScan {
	return &spanScan{spanPairs: spanPairs{d: d, cols: cols}, sels: sels}
}

func (s *spanScan) columns() []Column           { return s.cols }
func (s *spanScan) cardinality() (uint64, bool) { return 0, false }
func (s *spanScan) threads() int                { return 1 }
func (s *spanScan) local() scanThread           { return s }
func (s *spanScan) start(cols []int) (execution, error) {
	s.d.spanTasks.Store(0)
	if !s.d.serialSpans {
		if x, err := s.startParallel(cols); x != nil || err != nil {
			return x, err
		}
	}
	return &spanScan{spanPairs: spanPairs{d: s.d, cols: s.cols, proj: cols}, sels: s.sels}, nil
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
		sr.need = max(sr.lane, sr.flow, sr.dur, sr.id, sr.parent) + 1
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
			s.open.reset()
			s.closed(s.nOpen)
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
						s.event(&spanEvent{e.ev.Cycle, e.ev.FormatID, e.ev.UnitID, e.ev.ArgCount, e.ev.RawArgs()}, e.seq, res)
						return s.err
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
				endRows(s.pend[s.openRows():], s.closeAt())
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
		s.saw(ev.Cycle)
		seq := uint64(ev.Block)<<32 | uint64(rawread.Index(s.it))
		if s.order == nil {
			s.event(&spanEvent{ev.Cycle, ev.FormatID, ev.UnitID, ev.ArgCount, ev.RawArgs()}, seq, noTree)
			if s.err != nil {
				return s.err
			}
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
	s.drain(out)
	return nil
}

// saw notes an event read at cycle: the last one at or after the window's
// start ends the spans still open when the selection ends.
func (s *spanPairs) saw(cycle uint64) {
	if cycle >= s.from {
		s.last, s.read = max(s.last, cycle), true
	}
}

// closeAt is where the spans still open when the selection ends end: at the
// last event read in it, as the exports close them (a span open at the
// window's start that no event in the window follows ends where it
// starts, the window's first cycle).
func (s *spanPairs) closeAt() uint64 {
	if !s.read {
		return s.from
	}
	return s.last
}

// openRows appends a row for each begin/end and async span still open and
// returns where they start in pend: each ends where it starts until
// endRows ends them where the selection ends. A span is a row whether or
// not its end was selected; its duration is what the selection shows of
// it.
func (s *spanPairs) openRows() int {
	n := len(s.pend)
	s.open.each(func(lk laneKey, st *[]openSpan) {
		for _, b := range *st {
			start := max(b.start, s.from)
			s.pend = append(s.pend, spanRow{ti: s.ti, unit: lk.unit, role: b.role, lane: lk.lane, start: start, end: start,
				flow: b.flow, hasFlow: b.has, seq: b.seq, parent: b.parent, parentID: b.pid})
		}
	})
	for _, b := range s.async {
		s.asyncRow(&b, b.unit, b.start)
	}
	s.ua.each(func(b openSpan) { s.asyncRow(&b, b.unit, b.start) })
	s.open.reset()
	s.closed(s.nOpen) // rows now, written as the chunks go
	clear(s.async)
	s.ua.reset()
	return n
}

// asyncRow adds the row of async span b, ended at end on unit (a span
// still open: end is its start, endRows ends it), cut at the window's
// start.
func (s *spanPairs) asyncRow(b *openSpan, unit uint16, end uint64) {
	s.pend = append(s.pend, spanRow{ti: s.ti, unit: unit, role: b.role, lane: b.lane, start: max(b.start, s.from), end: max(end, s.from),
		flow: b.flow, hasFlow: b.has, seq: b.seq, id: b.id, hasID: true, parent: b.parent, parentID: b.pid})
}

// endRows ends the rows openRows made at cycle at (never before they
// start), in the order of their begins.
func endRows(rows []spanRow, at uint64) {
	for i := range rows {
		rows[i].end = max(rows[i].end, at)
	}
	slices.SortFunc(rows, func(a, b spanRow) int { return cmp.Compare(a.seq, b.seq) })
}

// drain writes the rows found into out, a chunk's worth at most.
func (s *spanPairs) drain(out *chunk) {
	n := min(len(s.pend), vectorSize)
	for row := range n {
		s.write(out, row, &s.pend[row])
	}
	s.pend = append(s.pend[:0], s.pend[n:]...)
	out.setSize(n)
}

// spanParentColumn is the parent column's index in spansColumns.
const spanParentColumn = 9

// noTree is the resolution of an event with no span trees.
var noTree = spantree.Resolved{Node: -1, Parent: -1}

// event takes a span event (seq: its place in the file; res: what the span
// orderer resolved, noTree without one).
func (s *spanPairs) event(ev *spanEvent, seq uint64, res spantree.Resolved) {
	if int(ev.fid) >= len(s.roles) {
		return
	}
	sr := s.roles[ev.fid]
	if sr == nil {
		return
	}
	v := &s.view
	v.ResetFirst(sr.types, ev.args, int(ev.argc), sr.need)
	lk := laneKey{unit: ev.unit}
	if v.Has(sr.lane) {
		lk.lane = v.Uint(sr.lane)
	}
	var flow uint64
	if v.Has(sr.flow) {
		flow = v.Uint(sr.flow)
	}
	var pid uint64
	if v.Has(sr.parent) {
		pid = v.Uint(sr.parent)
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
		if s.async == nil {
			s.async = map[int64]openSpan{}
		}
		if _, ok := s.async[res.Node]; !ok {
			s.opened(ev.cycle)
		}
		s.async[res.Node] = openSpan{start: ev.cycle, flow: flow, has: flow != 0, role: sr, seq: seq, id: v.Uint(sr.id), parent: parent, pid: pid, lane: lk.lane, unit: ev.unit}
	case schema.KindAsyncEnd:
		b, ok := s.async[res.Node]
		if !ok {
			return // its begin lies before the selection
		}
		delete(s.async, res.Node)
		s.closed(1)
		if ev.cycle < s.from {
			return // ended before the window
		}
		s.asyncRow(&b, ev.unit, ev.cycle)
	case schema.KindSpanComplete:
		dur, durType := uint64(0), schema.ArgUInt64
		if v.Has(sr.dur) {
			dur, durType = v.Uint(sr.dur), sr.types[sr.dur]
		}
		end, ok := schema.CompleteSpanEnd(ev.cycle, dur, durType)
		if !ok {
			s.d.impossibleSpan(s.ti, ev.unit, sr.name, ev.cycle, dur)
			return // ends before it begins: left out, counted
		}
		if end < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: ev.unit, role: sr, lane: lk.lane, start: max(ev.cycle, s.from), end: end,
			flow: flow, hasFlow: flow != 0, seq: seq, parent: parent, parentID: pid})
	case schema.KindSpanBegin:
		s.opened(ev.cycle)
		st := s.open.stack(lk, true)
		*st = append(*st, openSpan{start: ev.cycle, flow: flow, has: flow != 0, role: sr, seq: seq, parent: parent, pid: pid})
	case schema.KindSpanEnd:
		st := s.open.stack(lk, false)
		if st == nil || len(*st) == 0 {
			return // its begin lies before the selection
		}
		b := (*st)[len(*st)-1]
		*st = (*st)[:len(*st)-1]
		s.closed(1)
		if ev.cycle < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{ti: s.ti, unit: ev.unit, role: b.role, lane: lk.lane, start: max(b.start, s.from), end: ev.cycle,
			flow: b.flow, hasFlow: b.has, seq: b.seq, parent: b.parent, parentID: b.pid})
	}
}

// write writes r into row of the chunk: each column the query reads, with
// no boxing (a span is a row of a few stores).
func (s *spanPairs) write(out *chunk, row int, r *spanRow) {
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
		case spanParentColumn:
			if r.parent >= 0 {
				column[uint64](out, oc)[row] = uint64(r.parent)
			} else {
				out.setNull(oc, row)
			}
		case 10:
			if r.parentID != 0 {
				column[uint64](out, oc)[row] = r.parentID
			} else {
				out.setNull(oc, row)
			}
		case 11, 12: // time, end_time: there when a trace has a time base
			tb := t.timeBase(r.unit)
			if tb.IsZero() {
				out.setNull(oc, row)
			} else if c-off == 11 {
				column[float64](out, oc)[row] = tb.Seconds(r.start)
			} else {
				column[float64](out, oc)[row] = tb.Seconds(r.end)
			}
		}
	}
}
