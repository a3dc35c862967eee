//go:build cgo

package tracesql

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Named parameters of the event tables' functions: the selection users
// write (cycles, unit), the one a query's predicates push down
// (pushdown.go) and the Parquet export's reading mode.
const (
	pushdownParam = "ctrace_pushdown"
	modeParam     = "ctrace_mode"
)

var selectionParams = []string{"cycles", "unit", pushdownParam, modeParam}

// groupedMode is the mode that makes an event table's function scan a
// unit's blocks on one thread, in cycle order (the Parquet export).
const groupedMode = "grouped"

// formatFunc is the table function behind every per-format table: a
// replacement scan turns FROM fetch into FROM ctrace_format('fetch'), so
// that a trace's formats, however many, cost nothing until a query names
// one (a view per format costs DuckDB ~0.4 ms each to create).
const formatFunc = "ctrace_format"

// functionColumns are the columns of fixed table t's function.
func functionColumns(t Table) []Column {
	if t.Name == "events" {
		return append([]Column{{anyColumn, "USMALLINT", "nothing: the column DuckDB reads when a query needs none"}}, t.Columns...)
	}
	return t.Columns
}

// hasSelection reports whether table t takes the selection parameters.
func hasSelection(t string) bool {
	switch t {
	case "units", "formats", "categories", "metadata", "blocks":
		return false
	}
	return true
}

// register registers the functions behind the fixed tables and the
// per-format tables on conn (DuckDB's catalog is the database's: every
// connection sees them).
func (d *DB) register(conn *sql.Conn) error {
	for _, t := range d.fixedTables() {
		f := &tableFunction{name: funcName(t.Name)}
		cols := functionColumns(t)
		switch t.Name {
		case "events":
			f.named, f.bind = selectionParams, d.bindEvents(kindEvents, nil, cols)
		case "flows":
			f.named, f.bind = selectionParams, d.bindEvents(kindFlows, nil, cols)
		case "counters":
			f.named, f.bind = selectionParams, d.bindEvents(kindCounters, nil, cols)
		case "spans":
			f.named, f.bind = selectionParams, func(a bindArgs) (scanner, error) {
				sels, err := d.selection(a)
				if err != nil {
					return nil, err
				}
				return d.newSpanScan(cols, sels), nil
			}
		default:
			t := t
			f.bind = func(bindArgs) (scanner, error) {
				// The rows are made when a query reads them: binding the
				// views made when the database opens reads none.
				return &staticTable{cols: t.Columns, n: d.staticCount(t.Name), rowsOf: func() [][]any { return d.staticRows(t.Name) }}, nil
			}
		}
		if err := registerFunction(conn, f); err != nil {
			return err
		}
	}
	// The traces and the names of their units, for evaluating the unit
	// predicates of a query (pushdown.go).
	for name, table := range map[string]func() *staticTable{"ctrace_traces": d.tracesTable, "ctrace_unit_names": d.unitNamesTable} {
		table := table
		if err := registerFunction(conn, &tableFunction{name: name, bind: func(bindArgs) (scanner, error) { return table(), nil }}); err != nil {
			return err
		}
	}
	return registerFunction(conn, &tableFunction{name: formatFunc, pos: 1, named: selectionParams, bind: func(a bindArgs) (scanner, error) {
		ft := d.formatTable(a.pos[0])
		if ft == nil {
			return nil, fmt.Errorf("tracesql: no table %q", a.pos[0])
		}
		return d.bindEvents(kindFormat, ft, d.built(ft).Columns)(a)
	}})
}

func (d *DB) tracesTable() *staticTable {
	s := &staticTable{cols: []Column{{"ti", "UINTEGER", ""}, {"trace", "VARCHAR", ""}}}
	for i, t := range d.traces {
		s.rows = append(s.rows, []any{uint32(i), t.name})
	}
	return s
}

func (d *DB) unitNamesTable() *staticTable {
	s := &staticTable{cols: []Column{{"ti", "UINTEGER", ""}, {"unit_id", "USMALLINT", ""}, {"unit", "VARCHAR", ""}}}
	for i, t := range d.traces {
		for id, name := range t.unitStrs {
			if name != "" {
				s.rows = append(s.rows, []any{uint32(i), uint16(id), name})
			}
		}
	}
	return s
}

func (d *DB) bindEvents(kind scanKind, ft *fmtTable, cols []Column) func(bindArgs) (scanner, error) {
	return func(a bindArgs) (scanner, error) {
		sels, err := d.selection(a)
		if err != nil {
			return nil, err
		}
		return d.newEventTable(kind, ft, cols, sels, a.named[modeParam] == groupedMode), nil
	}
}

// formatTable returns the per-format table named name (as SQL compares
// identifiers: case-insensitively), or nil. Its columns may not be built
// yet (built).
func (d *DB) formatTable(name string) *fmtTable {
	if d.namer == nil || d.names.tables[strings.ToLower(name)] {
		return nil // a dataset's; or ours (spans), DuckDB's: no generated name, and no need to name them all
	}
	d.naming()
	// A span's table is a view on spans, not one of these. A lower-case
	// spelling never hides a table's own name.
	if ft := d.namer.byName[name]; ft != nil && ft.Format != "" {
		return ft
	}
	l := strings.ToLower(name)
	if ft := d.namer.byName[l]; ft != nil && ft.Format != "" {
		return ft
	}
	return d.fmtLower[l]
}

// replacement answers DuckDB's replacement scan: a table name no catalog
// entry has is a per-format table's when the traces have that format.
func (d *DB) replacement(name string) (string, []any, error) {
	if ft := d.formatTable(name); ft != nil {
		return formatFunc, []any{ft.Name}, nil
	}
	return "", nil, nil
}

// selection turns a table function's parameters into one selection per
// trace: the database's options narrowed by the cycles and unit
// parameters and by what the query pushed down.
func (d *DB) selection(a bindArgs) ([]selection, error) {
	sels := make([]selection, len(d.traces))
	for i, t := range d.traces {
		sels[i] = t.sel
	}
	if s := a.named["cycles"]; s != "" {
		lo, hi, err := ParseCycles(s)
		if err != nil {
			return nil, err
		}
		for i := range sels {
			sels[i] = sels[i].withCycles([]cycleRange{{lo, hi}})
		}
	}
	if unit := a.named["unit"]; unit != "" {
		matched := false
		for i, t := range d.traces {
			ids, err := unitsOf(t, unit)
			if err != nil {
				return nil, err
			}
			sels[i] = sels[i].withUnits(ids)
			matched = matched || len(ids) > 0
		}
		if !matched {
			return nil, fmt.Errorf("unit := %q: no unit name %s", unit, unitsel.Describe(unit))
		}
	}
	if s := a.named[pushdownParam]; s != "" {
		p, err := parsePushSpec(s, len(d.traces))
		if err != nil {
			return nil, err
		}
		for i := range sels {
			if p.cycles != nil {
				sels[i] = sels[i].withCycles(p.cycles)
			}
			if p.units[i] != nil {
				sels[i] = sels[i].withUnits(p.units[i])
			}
		}
	}
	return sels, nil
}

// optionSelection is the selection of the database's options in trace t.
func (d *DB) optionSelection(t *trace) selection {
	s := everything
	if d.cfg.hasCycles {
		s = s.withCycles([]cycleRange{{d.cfg.start, d.cfg.end}})
	}
	if d.cfg.hasUnit {
		s = s.withUnits(unitsSelected(t.r, d.cfg.unit))
	}
	return s
}

// unitsOf resolves a unit parameter: the units it selects as trace_reader's
// --unit does (unitsSelected), or, written "#1,2,3", those ids.
func unitsOf(t *trace, unit string) ([]uint16, error) {
	if !strings.HasPrefix(unit, "#") {
		if err := unitsel.Check(unit); err != nil {
			return nil, fmt.Errorf("unit := %q: %v", unit, err)
		}
		return unitsSelected(t.r, unit), nil
	}
	var ids []uint16
	for _, f := range strings.Split(unit[1:], ",") {
		id, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil {
			return nil, fmt.Errorf("unit := %q: want a name, or #ID,ID for unit ids", unit)
		}
		ids = append(ids, uint16(id))
	}
	return ids, nil
}

// unitsSelected returns the ids of r's named units that sel selects, with
// trace_reader --unit's syntax (internal/unitsel.Filter): a part of the
// name, a pattern on the whole name, =NAME for exactly NAME.
func unitsSelected(r *mmapio.Reader, sel string) []uint16 {
	var ids []uint16
	seen := map[uint16]bool{}
	for _, u := range r.Units() {
		if name := r.UnitName(u.ID); !seen[u.ID] && name != "" && unitsel.Filter(sel, name) {
			ids = append(ids, u.ID)
		}
		seen[u.ID] = true
	}
	return ids
}
