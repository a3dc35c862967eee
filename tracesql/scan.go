//go:build cgo

package tracesql

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
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
	fTime
	fSeq
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
	fAny   // anyColumn
	fArg   // fArg+i: argument i of a per-format table
)

var fieldOf = map[string]field{
	"trace": fTrace, "cycle": fCycle, "time": fTime, "seq": fSeq, "unit": fUnit, "unit_id": fUnitID,
	"format": fFormat, "format_id": fFormatID, "category": fCategory, "source_id": fSourceID,
	"message": fMessage, "flow": fFlow, "name": fName, "value": fValue, anyColumn: fAny,
}

// anyColumn is the first column of the events function, which its view
// and macro leave out: DuckDB reads a table function's first column when a
// query needs none (count(*)), and this one costs nothing, where the cycle
// would cost decoding every block.
const anyColumn = "ctrace_any"

// footerField reports whether a column can be filled from the footer
// alone, for a block of one unit that the selection wants whole.
func footerField(f field) bool {
	return f == fTrace || f == fUnit || f == fUnitID || f == fSourceID || f == fAny
}

// unitField reports whether f is the unit's (the footer gives it for a
// block of one unit only).
func unitField(f field) bool { return f == fUnit || f == fUnitID || f == fSourceID }

// eventTable is a bound call of an event table's function (events, a
// per-format table, flows, counters): the traces' selections, and the
// columns.
type eventTable struct {
	d      *DB
	kind   scanKind
	ft     *fmtTable
	cols   []Column
	fields []field
	sels   []selection // by trace
	// grouped: a task is every block of one unit, read in cycle order, so
	// that a thread writes a unit's rows in cycle order (the Parquet export).
	grouped bool
	// Per trace, for flows and counters: the formats the table reads and
	// where their argument is, made by the first execution (wantOnce).
	want     []map[uint32]*fmtRole
	wantOnce sync.Once
}

// fmtRole is what a flows or counters scan needs of a format.
type fmtRole struct {
	name  []byte
	types []schema.ArgType
	arg   int // the flow or value argument
}

func (d *DB) newEventTable(kind scanKind, ft *fmtTable, cols []Column, sels []selection, grouped bool) *eventTable {
	e := &eventTable{d: d, kind: kind, ft: ft, cols: cols, sels: sels, grouped: grouped}
	e.fields = make([]field, len(cols))
	args := 0
	for i, c := range cols {
		f, ok := fieldOf[c.Name]
		if kind == kindFormat && i >= len(cols)-len(ft.types) {
			f, ok = fArg+field(args), true
			args++
		}
		if !ok {
			panic("tracesql: no field for column " + c.Name) // the catalog's own columns
		}
		e.fields[i] = f
	}
	return e
}

// prepare makes what an execution needs beyond the binding (which the
// views made when the database opens do): the formats' names when it
// writes them, the roles of flows' and counters' formats.
func (e *eventTable) prepare(proj []projCol) {
	names := e.kind == kindFlows
	for _, pc := range proj {
		names = names || pc.f == fFormat
	}
	if names {
		e.d.naming()
	}
	if e.kind == kindFlows || e.kind == kindCounters {
		e.wantOnce.Do(func() {
			e.want = make([]map[uint32]*fmtRole, len(e.d.traces))
			for ti, t := range e.d.traces {
				e.want[ti] = roles(t, e.kind)
			}
		})
	}
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
				var name []byte
				if kind == kindCounters {
					name = []byte(counterName(f))
				} else {
					name = t.fmtNames.get(f.ID) // named: prepare
				}
				m[f.ID] = &fmtRole{name: name, types: f.ArgTypes, arg: i}
				break
			}
		}
	}
	return m
}

func (e *eventTable) columns() []Column { return e.cols }

func (e *eventTable) cardinality() (uint64, bool) {
	var n uint64
	for _, t := range e.d.traces {
		n += t.r.Status().Events
	}
	return n, false
}

// wants reports whether the table reads anything from trace ti.
func (e *eventTable) wants(ti int) bool {
	if e.sels[ti].empty() {
		return false
	}
	switch e.kind {
	case kindFormat:
		return e.ft.ids[ti] >= 0
	case kindFlows, kindCounters:
		return len(e.want[ti]) > 0
	}
	return true
}

// blockInfo is what a scan needs of a planned block.
type blockInfo struct {
	index    int32
	events   uint32
	min, max uint64
	unit     int32 // its one recorded unit; -1: several, or none recorded
	whole    bool  // the selection wants every event of it
	cost     int64 // bytes decoding it holds: buffer and records
}

// task is what a thread takes at a time: one block, or (grouped) the blocks
// of one unit in cycle order.
type task struct {
	trace  int32
	unit   int32 // grouped: the unit (-1: the blocks of several units)
	blocks []blockInfo
}

// eventRun is one execution of an eventTable.
type eventRun struct {
	e       *eventTable
	proj    []projCol
	footer  bool // every column read can come from the footer (footerField)
	unit    bool // a unit column is read
	hasArgs bool // an argument column is read (or the table needs its role)
	tasks   []task
	next    atomic.Int64
	// blockUnit, grouped: per trace, the one unit of each block (-1:
	// several or none), to tell a fallback iteration's events apart.
	blockUnit [][]int32
}

type projCol struct {
	col int // in the output chunk
	f   field
}

func (e *eventTable) start(cols []int) (execution, error) {
	x := &eventRun{e: e, footer: e.kind == kindEvents}
	for out, c := range cols {
		if c < 0 {
			continue
		}
		f := e.fields[c]
		x.proj = append(x.proj, projCol{out, f})
		x.footer = x.footer && footerField(f)
		x.unit = x.unit || unitField(f)
		x.hasArgs = x.hasArgs || f >= fArg
	}
	x.hasArgs = x.hasArgs || e.kind == kindFlows || e.kind == kindCounters // a row exists only when its argument does
	e.prepare(x.proj)
	if e.grouped {
		x.blockUnit = make([][]int32, len(e.d.traces))
	}
	for ti, t := range e.d.traces {
		if !e.wants(ti) {
			continue
		}
		plan, err := planBlocks(t.r, &e.sels[ti])
		if err != nil {
			return nil, err
		}
		if len(plan) == 0 {
			continue
		}
		blocks := t.r.Blocks()
		if err := t.r.Err(); err != nil {
			return nil, err
		}
		infos := make([]blockInfo, len(plan))
		for i, bi := range plan {
			infos[i] = infoOf(&blocks[bi], &e.sels[ti])
		}
		if !e.grouped {
			for i := range infos {
				x.tasks = append(x.tasks, task{trace: int32(ti), unit: infos[i].unit, blocks: infos[i : i+1 : i+1]})
			}
			continue
		}
		units := make([]int32, len(blocks))
		for i := range blocks {
			units[i] = infoOf(&blocks[i], &everything).unit
		}
		x.blockUnit[ti] = units
		x.tasks = append(x.tasks, groupByUnit(int32(ti), infos)...)
	}
	return x, nil
}

func infoOf(b *mmapio.Block, s *selection) blockInfo {
	bi := blockInfo{index: int32(b.Index), events: b.EventCount, min: b.MinCycle, max: b.MaxCycle, unit: -1}
	if len(b.Units) == 1 {
		bi.unit = int32(b.Units[0])
	}
	bi.whole = s.coversCycles(b.MinCycle, b.MaxCycle) && s.coversUnits(b.Units)
	bi.cost = int64(b.EventCount) * (tracefile.RecSize + 4) // its records, and the rows a thread selects (int32 each)
	if !tracefile.IsRaw(b) {
		bi.cost += int64(b.UncompressedSize) // decoded into a buffer (a raw block is read in place)
	}
	return bi
}

// planBlocks returns the blocks of r that can hold events s selects, in
// file order: the seek index's plan for each cycle range (the hull when
// there are many), merged.
func planBlocks(r *mmapio.Reader, s *selection) ([]int32, error) {
	q := mmapio.Query{}
	if ids := s.unitIDs(); ids != nil {
		q = q.WithUnits(ids...)
	}
	if s.cycles == nil {
		plan, err := rawread.Plan(r, q)
		slices.Sort(plan)
		return plan, err
	}
	ranges := s.cycles
	if len(ranges) > 64 {
		ranges = []cycleRange{s.hull()}
	}
	var plan []int32
	for _, cr := range ranges {
		p, err := rawread.Plan(r, q.WithCycles(cr.lo, cr.hi))
		if err != nil {
			return nil, err
		}
		plan = append(plan, p...)
	}
	slices.Sort(plan)
	return slices.Compact(plan), nil
}

// groupByUnit makes one task per unit of the blocks that record one unit
// (our writer's), their blocks in cycle order (ties in file order, as a
// merge takes them); the blocks that hold several units or record none
// (the original writer's) make one more task.
func groupByUnit(ti int32, infos []blockInfo) []task {
	byUnit := map[int32]int{}
	var tasks []task
	for _, b := range infos {
		k, ok := byUnit[b.unit]
		if !ok {
			k = len(tasks)
			byUnit[b.unit] = k
			tasks = append(tasks, task{trace: ti, unit: b.unit})
		}
		tasks[k].blocks = append(tasks[k].blocks, b)
	}
	for i := range tasks {
		slices.SortStableFunc(tasks[i].blocks, func(a, b blockInfo) int {
			return cmp.Or(cmp.Compare(a.min, b.min), cmp.Compare(a.index, b.index))
		})
	}
	return tasks
}

func (x *eventRun) threads() int { return len(x.tasks) }

func (x *eventRun) local() scanThread { return &eventThread{x: x, d: x.e.d} }
