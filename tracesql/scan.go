//go:build cgo

package tracesql

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/rawread"
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
	trace  int32
	blocks []int32 // one block, or (grouped) all the blocks of a unit in cycle order
}

// eventScan is a table function's scan of the events of the traces: DuckDB's
// threads take blocks from the plan one at a time (next), decode them with
// rawread.Decode and fill chunks with the columns the query reads.
type eventScan struct {
	d      *DB
	kind   scanKind
	ft     *fmtTable
	cols   []Column
	fields []field
	qs     []mmapio.Query
	// grouped: a task is every block of one unit, in cycle order, so a
	// thread writes a unit's rows in cycle order (the Parquet export).
	grouped bool

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
	d       *rawread.Block
	trace   int
	pos     int
	view    argview.View
	buf     []byte
	proj    []projCol
	hasArgs bool

	task       task             // the current task
	next       int              // its next block
	group      []*rawread.Block // blocks of a task that overlap in cycles, merged
	refs       []ref            // their events in cycle order
	argDecodes int64            // not yet added to the DB's count
}

type projCol struct {
	col int
	f   field
}

func (d *DB) newEventScan(kind scanKind, ft *fmtTable, cols []Column, qs []mmapio.Query, grouped bool) *eventScan {
	s := &eventScan{d: d, kind: kind, ft: ft, qs: qs, grouped: grouped}
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

func (s *eventScan) ColumnInfos() []duckdb.ColumnInfo {
	infos := columnInfos(s.cols)
	for i, c := range s.cols {
		if enumColumn(s.tableName(), c.Name) {
			infos[i].T = s.d.unitEnum
			if c.Name == "format" {
				infos[i].T = s.d.fmtEnum
			}
		}
	}
	return infos
}

func (s *eventScan) tableName() string {
	switch s.kind {
	case kindEvents:
		return "events"
	case kindFlows:
		return "flows"
	case kindCounters:
		return "counters"
	}
	return s.ft.Name
}

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
	// 0 would mean one thread for a C API table function: ask for a thread
	// per task, DuckDB gives at most its own (SET threads, one per core).
	return duckdb.ParallelTableSourceInfo{MaxThreads: max(1, len(s.tasks))}
}

// wants reports whether the table reads anything from trace ti.
func (s *eventScan) wants(ti int) bool {
	switch s.kind {
	case kindFormat:
		return s.ft.ids[ti] >= 0
	case kindFlows, kindCounters:
		return len(s.want[ti]) > 0
	}
	return true
}

func (s *eventScan) plan() {
	for ti, t := range s.d.traces {
		if !s.wants(ti) {
			continue
		}
		plan, err := rawread.Plan(t.r, s.qs[ti])
		if err != nil {
			s.err = err
			return
		}
		if s.grouped {
			s.tasks = append(s.tasks, groupByUnit(t.r, int32(ti), plan)...)
			continue
		}
		for i := range plan {
			s.tasks = append(s.tasks, task{int32(ti), plan[i : i+1 : i+1]})
		}
	}
}

// groupByUnit makes one task per unit of the blocks that record one unit
// (our writer's), their blocks in the plan's (cycle) order; the blocks
// that hold several units or record none (the original writer's, which
// do not overlap) make one more task, in cycle order too.
func groupByUnit(r *mmapio.Reader, ti int32, plan []int32) []task {
	blocks := r.Blocks()
	byUnit := map[int]*task{}
	var order []int
	for _, b := range plan {
		key := -1
		if us := blocks[b].Units; len(us) == 1 {
			key = int(us[0])
		}
		tk := byUnit[key]
		if tk == nil {
			tk = &task{trace: ti}
			byUnit[key] = tk
			order = append(order, key)
		}
		tk.blocks = append(tk.blocks, b)
	}
	tasks := make([]task, len(order))
	for i, k := range order {
		tasks[i] = *byUnit[k]
	}
	return tasks
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
	defer func() {
		s.d.argDecodes.Add(l.argDecodes)
		l.argDecodes = 0
	}()
	row := 0
	for row < capacity {
		if l.d == nil && l.group == nil {
			if l.next >= len(l.task.blocks) {
				i := s.next.Add(1) - 1
				if i >= int64(len(s.tasks)) {
					break
				}
				l.task, l.next = s.tasks[i], 0
			}
			if err := s.take(l); err != nil {
				return err
			}
		}
		if l.group != nil {
			if row, err = s.fillGroup(l, &chunk, row, capacity); err != nil {
				return err
			}
			if l.pos >= len(l.refs) {
				for _, d := range l.group {
					d.Release()
				}
				l.group, l.refs = nil, l.refs[:0]
			}
			continue
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

// ref is an event of a merged group: block (in the group) and position.
type ref struct {
	cycle uint64
	b, i  int32
}

// take decodes the task's next block into l.d; in a grouped task, blocks
// whose cycle ranges overlap it (a unit whose blocks overlap) are decoded
// with it into l.group and their events merged in cycle order.
func (s *eventScan) take(l *scanLocal) (err error) {
	tk := l.task
	t := s.d.traces[tk.trace]
	l.trace, l.pos = int(tk.trace), 0
	last := l.next
	if s.grouped {
		blocks := t.r.Blocks()
		end := blocks[tk.blocks[last]].MaxCycle
		for last+1 < len(tk.blocks) && blocks[tk.blocks[last+1]].MinCycle <= end {
			last++
			end = max(end, blocks[tk.blocks[last]].MaxCycle)
		}
	}
	if last == l.next {
		l.d, err = rawread.Decode(t.r, tk.blocks[l.next], s.qs[tk.trace])
		l.next++
		return err
	}
	for ; l.next <= last; l.next++ {
		d, err := rawread.Decode(t.r, tk.blocks[l.next], s.qs[tk.trace])
		if err != nil {
			for _, g := range l.group {
				g.Release()
			}
			l.group = nil
			return err
		}
		b := int32(len(l.group))
		l.group = append(l.group, d)
		for i := range d.Len() {
			l.refs = append(l.refs, ref{d.Cycle(i), b, int32(i)})
		}
	}
	slices.SortStableFunc(l.refs, func(a, b ref) int { return cmp.Compare(a.cycle, b.cycle) })
	return nil
}

// fillGroup is fillFrom for a merged group.
func (s *eventScan) fillGroup(l *scanLocal, chunk *duckdb.DataChunk, row, capacity int) (_ int, err error) {
	t := s.d.traces[l.trace]
	defer rawread.CatchFault(t.r, &err, rawread.PanicOnFault())
	for ; l.pos < len(l.refs) && row < capacity; l.pos++ {
		rf := l.refs[l.pos]
		ev := l.group[rf.b].Event(int(rf.i))
		ok, err := s.event(l, t, chunk, row, &ev)
		if err != nil {
			return row, err
		}
		if ok {
			row++
		}
	}
	return row, nil
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
	defer rawread.CatchFault(t.r, &err, rawread.PanicOnFault()) // arguments of raw blocks alias the mapping
	n := l.d.Len()
	for ; l.pos < n && row < capacity; l.pos++ {
		ev := l.d.Event(l.pos)
		ok, err := s.event(l, t, chunk, row, &ev)
		if err != nil {
			return row, err
		}
		if ok {
			row++
		}
	}
	return row, nil
}

// event writes ev's row at row if it belongs to the table, and reports
// whether it did.
func (s *eventScan) event(l *scanLocal, t *trace, chunk *duckdb.DataChunk, row int, ev *mmapio.Event) (bool, error) {
	var role *fmtRole
	switch s.kind {
	case kindFormat:
		if int64(ev.FormatID) != s.ft.ids[l.trace] {
			return false, nil
		}
	case kindFlows, kindCounters:
		role = s.want[l.trace][ev.FormatID]
		if role == nil {
			return false, nil
		}
	}
	if l.hasArgs {
		l.argDecodes++
		if s.kind == kindFormat {
			l.view.Reset(s.ft.types, ev.RawArgs(), int(ev.ArgCount))
		} else if role != nil {
			l.view.Reset(role.types, ev.RawArgs(), int(ev.ArgCount))
			if !l.view.Has(role.arg) || s.kind == kindFlows && l.view.Uint(role.arg) == 0 {
				return false, nil // the event does not carry it after all (flow 0: none)
			}
		}
	}
	return true, s.writeRow(l, t, chunk, row, ev, role)
}

func (s *eventScan) writeRow(l *scanLocal, t *trace, chunk *duckdb.DataChunk, row int, ev *mmapio.Event, role *fmtRole) error {
	var err error
	for _, pc := range l.proj {
		switch f := pc.f; f {
		case fTrace:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.name)
		case fCycle:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.Cycle)
		case fUnit:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.unitStr(ev.UnitID)) // an ENUM
		case fUnitID, fSourceID:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, ev.UnitID)
		case fFormat:
			err = duckdb.SetChunkValue(*chunk, pc.col, row, t.fmtStrs[ev.FormatID]) // an ENUM
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
