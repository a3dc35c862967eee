//go:build cgo

package tracesql

import (
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/argview"
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
}

type spanRole struct {
	kind            schema.EventKind
	name            string
	types           []schema.ArgType
	lane, flow, dur int
}

type laneKey struct {
	unit uint16
	lane uint64
}

type openSpan struct {
	start uint64
	flow  uint64
	has   bool // flow is set
	role  *spanRole
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
		if r.Format(f.ID) != f || f.Kind < schema.KindSpanBegin || f.Kind > schema.KindSpanComplete {
			continue
		}
		if int(f.ID) >= len(m) {
			m = append(m, make([]*spanRole, int(f.ID)+1-len(m))...)
		}
		sr := &spanRole{kind: f.Kind, name: spanName(f), types: f.ArgTypes, lane: -1, flow: -1, dur: -1}
		for i := range f.ArgTypes {
			switch f.Role(i) {
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
			s.from = 0
			if a, b, windowed := q.Cycles(); windowed && a > 0 {
				s.from = a
				q = q.WithCycles(0, b) // the lookback
			}
			s.it = t.r.Iter(q)
		}
		if !s.it.Next() {
			err := s.it.Err()
			s.it.Close()
			s.it = nil
			s.ti++
			if err != nil {
				return err
			}
			continue
		}
		ev := s.it.Event()
		s.event(&ev)
	}
	n := min(len(s.pend), capacity)
	for row := range n {
		s.write(out, row, &s.pend[row])
	}
	s.pend = append(s.pend[:0], s.pend[n:]...)
	out.setSize(n)
	return nil
}

func (s *spanScan) event(ev *mmapio.Event) {
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
	switch sr.kind {
	case schema.KindSpanComplete:
		dur := uint64(0)
		if v.Has(sr.dur) {
			dur = v.Uint(sr.dur)
		}
		if ev.Cycle+dur < s.from {
			return // ended before the window
		}
		s.pend = append(s.pend, spanRow{s.ti, ev.UnitID, sr, lk.lane, max(ev.Cycle, s.from), ev.Cycle + dur, flow, flow != 0})
	case schema.KindSpanBegin:
		st := s.open[lk]
		if st == nil {
			st = new([]openSpan)
			s.open[lk] = st
		}
		*st = append(*st, openSpan{ev.Cycle, flow, flow != 0, sr})
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
		s.pend = append(s.pend, spanRow{s.ti, ev.UnitID, b.role, lk.lane, max(b.start, s.from), ev.Cycle, b.flow, b.has})
	}
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
		}
	}
}
