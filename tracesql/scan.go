//go:build cgo

package tracesql

import (
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// scanKind is which event table a scan fills.
type scanKind uint8

const (
	kindEvents scanKind = iota
	kindFormat
	kindFlows
	kindCounters
)

// field is what a column holds.
type field int

const (
	fTrace field = iota
	fCycle
	fUnit
	fUnitID
	fFormat
	fFormatID
	fCategory
	fSourceID
	fMessage
	fFlow  // flows.flow
	fName  // counters.name
	fValue // counters.value
	fArg   // fArg+i: argument i of a per-format table
)

var fieldOf = map[string]field{
	"trace": fTrace, "cycle": fCycle, "unit": fUnit, "unit_id": fUnitID, "format": fFormat,
	"format_id": fFormatID, "category": fCategory, "source_id": fSourceID, "message": fMessage,
	"flow": fFlow, "name": fName, "value": fValue,
}

// task is one block of one trace.
type task struct {
	trace int32
	block int32
}

// eventScan is a table function's scan of the events of the traces: DuckDB's
// threads take blocks from the plan one at a time (next), decode them with
// mmapio.DecodeBlock and fill chunks with the columns the query reads.
type eventScan struct {
	d      *DB
	kind   scanKind
	ft     *fmtTable
	cols   []Column
	fields []field
	qs     []mmapio.Query

	once  sync.Once
	tasks []task
	err   error
	next  atomic.Int64

	// Per trace, for per-format, counter and flow scans: which formats the
	// table reads and where their interesting arguments are.
	want []map[uint32]*fmtRole
}

// fmtRole is what a flows or counters scan needs of a format.
type fmtRole struct {
	name  []byte
	types []schema.ArgType
	arg   int // the flow or value argument
}

// scanLocal is one thread's state: the block it is in and where.
type scanLocal struct {
	d       *mmapio.DecodedBlock
	trace   int
	pos     int
	view    argview.View
	buf     []byte
	proj    []projCol
	hasArgs bool
}

type projCol struct {
	col int
	f   field
}

func (d *DB) newEventScan(kind scanKind, ft *fmtTable, cols []Column, qs []mmapio.Query) *eventScan {
	s := &eventScan{d: d, kind: kind, ft: ft, qs: qs}
	s.cols = cols // with the trace column when there are several (Tables)
	s.fields = make([]field, len(cols))
	args := 0
	for i, c := range cols {
		f, ok := fieldOf[c.Name]
		if kind == kindFormat && i >= len(cols)-len(ft.types) {
			f, ok = fArg+field(args), true
			args++
		}
		if !ok {
			panic("tracesql: no field for column " + c.Name)
		}
		s.fields[i] = f
	}
	if kind == kindFlows || kind == kindCounters {
		s.want = make([]map[uint32]*fmtRole, len(d.traces))
		for ti, t := range d.traces {
			s.want[ti] = roles(t, kind)
		}
	}
	return s
}

// roles lists the formats of t that carry a flow id (kindFlows) or are
// counters with a value (kindCounters).
func roles(t *trace, kind scanKind) map[uint32]*fmtRole {
	m := map[uint32]*fmtRole{}
	for _, f := range t.r.Formats() {
		if t.r.Format(f.ID) != f {
			continue // a later entry with the same id: never used
		}
		for i := range f.ArgTypes {
			role := f.Role(i)
			if kind == kindFlows && role == schema.RoleFlow || kind == kindCounters && role == schema.RoleValue && f.Kind == schema.KindCounter {
				name := t.fmtNames[f.ID]
				if kind == kindCounters {
					name = []byte(counterName(f))
				}
				m[f.ID] = &fmtRole{name: name, types: f.ArgTypes, arg: i}
				break
			}
		}
	}
	return m
}

func (s *eventScan) ColumnInfos() []duckdb.ColumnInfo { return columnInfos(s.cols) }

func (s *eventScan) Cardinality() *duckdb.CardinalityInfo {
	var n uint64
	for _, t := range s.d.traces {
		n += t.r.Status().Events
	}
	return &duckdb.CardinalityInfo{Cardinality: uint(n), Exact: false}
}

// Init plans the blocks. It runs once per execution of the query.
func (s *eventScan) Init() duckdb.ParallelTableSourceInfo {
	s.once.Do(s.plan)
	return duckdb.ParallelTableSourceInfo{MaxThreads: 0}
}

func (s *eventScan) plan() {
	for ti, t := range s.d.traces {
		if s.kind == kindFormat && s.ft.ids[ti] < 0 {
			continue
		}
		if (s.kind == kindFlows || s.kind == kindCounters) && len(s.want[ti]) == 0 {
			continue
		}
		plan, err := t.r.BlockPlan(s.qs[ti])
		if err != nil {
			s.err = err
			return
		}
		for _, b := range plan {
			s.tasks = append(s.tasks, task{int32(ti), b})
		}
	}
}

func (s *eventScan) NewLocalState() any { return &scanLocal{} }

// FillChunk fills one chunk from the thread's current block, taking the
// next block of the plan when it runs out. A chunk with no rows ends the
// thread's scan.
func (s *eventScan) FillChunk(ls any, chunk duckdb.DataChunk) (err error) {
	l := ls.(*scanLocal)
	if s.err != nil {
		return s.err
	}
	s.project(l, &chunk)
	capacity := duckdb.GetDataChunkCapacity()
	row := 0
	for row < capacity {
		if l.d == nil {
			i := s.next.Add(1) - 1
			if i >= int64(len(s.tasks)) {
				break
			}
			tk := s.tasks[i]
			t := s.d.traces[tk.trace]
			if l.d, err = t.r.DecodeBlock(tk.block, s.qs[tk.trace]); err != nil {
				return err
			}
			l.trace, l.pos = int(tk.trace), 0
		}
		if row, err = s.fillFrom(l, &chunk, row, capacity); err != nil {
			return err
		}
		if l.pos >= l.d.Len() {
			l.d.Release()
			l.d = nil
		}
	}
	return chunk.SetSize(row)
}

// project finds the columns the query reads (DuckDB passes the others
// unprojected: GetVector fails for them).
func (s *eventScan) project(l *scanLocal, chunk *duckdb.DataChunk) {
	if l.proj != nil {
		return
	}
	l.proj = []projCol{}
	for c, f := range s.fields {
		if _, err := chunk.GetVector(c); err == nil {
			l.proj = append(l.proj, projCol{c, f})
			if f >= fArg {
				l.hasArgs = true
			}
		}
	}
	// A flow or counter row exists only when its argument does.
	l.hasArgs = l.hasArgs || s.kind == kindFlows || s.kind == kindCounters
}

// fillFrom writes the rows of l's block from l.pos on, from row on, until
// the chunk or the block is full; it returns the next free row.
func (s *eventScan) fillFrom(l *scanLocal, chunk *duckdb.DataChunk, row, capacity int) (_ int, err error) {
	t := s.d.traces[l.trace]
	defer t.r.CatchFault(&err, mmapio.PanicOnFault()) // arguments of raw blocks alias the mapping
	n := l.d.Len()
	var fid uint32 = math32
	var role *fmtRole
	if s.kind == kindFormat {
		fid = uint32(s.ft.ids[l.trace])
	}
	argDecodes := int64(0)
	for ; l.pos < n && row < capacity; l.pos++ {
		ev := l.d.Event(l.pos)
		switch s.kind {
		case kindFormat:
			if ev.FormatID != fid {
				continue
			}
		case kindFlows, kindCounters:
			role = s.want[l.trace][ev.FormatID]
			if role == nil {
				continue
			}
		}
		if l.hasArgs {
			argDecodes++
			if s.kind == kindFormat {
				l.view.Reset(s.ft.types, ev.RawArgs(), int(ev.ArgCount))
			} else if role != nil {
				l.view.Reset(role.types, ev.RawArgs(), int(ev.ArgCount))
				if !l.view.Has(role.arg) || s.kind == kindFlows && l.view.Uint(role.arg) == 0 {
					continue // the event does not carry it after all (flow 0: none)
				}
			}
		}
		if err := s.writeRow(l, t, chunk, row, &ev, role); err != nil {
			return row, err
		}
		row++
	}
	if argDecodes > 0 {
		s.d.argDecodes.Add(argDecodes)
	}
	return row, nil
}

const math32 = ^uint32(0)

func (s *eventScan) writeRow(l *scanLocal, t *trace, chunk *duckdb.DataChunk, row int, ev *mmapio.Event, role *fmtRole) error {
	var err error
	for _, pc := range l.proj {
		switch f := pc.f; f {
		case fTrace:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.name)
		case fCycle:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.Cycle)
		case fUnit:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.unitName(ev.UnitID))
		case fUnitID, fSourceID:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.UnitID)
		case fFormat:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.fmtNames[ev.FormatID])
		case fFormatID:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.FormatID)
		case fCategory:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.Category)
		case fMessage:
			l.buf = ev.AppendMessage(l.buf[:0])
			err = duckdb.SetChunkValue(*chunk, pc.col, row, validUTF8(l.buf))
		case fFlow:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, l.view.Uint(role.arg))
		case fName:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, role.name)
		case fValue:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, l.view.Float(role.arg))
		default:
			err = s.writeArg(l, chunk, pc.col, row, int(f-fArg))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeArg writes argument i of a per-format table's event (NULL when the
// event does not carry it wholly).
func (s *eventScan) writeArg(l *scanLocal, chunk *duckdb.DataChunk, col, row, i int) error {
	v := &l.view
	if !v.Has(i) {
		return chunk.SetValue(col, row, nil)
	}
	switch v.Types[i] {
	case schema.ArgInt8:
		return duckdb.SetChunkValue(*chunk, col, row, int8(v.Uint(i)))
	case schema.ArgInt16:
		return duckdb.SetChunkValue(*chunk, col, row, int16(v.Uint(i)))
	case schema.ArgInt32:
		return duckdb.SetChunkValue(*chunk, col, row, int32(v.Uint(i)))
	case schema.ArgInt64:
		return duckdb.SetChunkValue(*chunk, col, row, int64(v.Uint(i)))
	case schema.ArgUInt8:
		return duckdb.SetChunkValue(*chunk, col, row, uint8(v.Uint(i)))
	case schema.ArgUInt16:
		return duckdb.SetChunkValue(*chunk, col, row, uint16(v.Uint(i)))
	case schema.ArgUInt32:
		return duckdb.SetChunkValue(*chunk, col, row, uint32(v.Uint(i)))
	case schema.ArgUInt64, schema.ArgPointer:
		return duckdb.SetChunkValue(*chunk, col, row, v.Uint(i))
	case schema.ArgFloat:
		return duckdb.SetChunkValue(*chunk, col, row, float32(v.Float(i)))
	case schema.ArgDouble:
		return duckdb.SetChunkValue(*chunk, col, row, v.Float(i))
	case schema.ArgBool:
		return duckdb.SetChunkValue(*chunk, col, row, v.Uint(i) != 0)
	}
	return duckdb.SetChunkValue(*chunk, col, row, validUTF8(v.Str(i)))
}

// validUTF8 returns b, or b with its invalid bytes replaced by U+FFFD
// (DuckDB's VARCHAR holds UTF-8 only).
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(string([]rune(string(b))))
}
