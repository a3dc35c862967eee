//go:build cgo

package tracesql

import (
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// duckTypes maps the catalog's type names to DuckDB's.
var duckTypes = map[string]duckdb.Type{
	"TINYINT": duckdb.TYPE_TINYINT, "SMALLINT": duckdb.TYPE_SMALLINT, "INTEGER": duckdb.TYPE_INTEGER,
	"BIGINT": duckdb.TYPE_BIGINT, "UTINYINT": duckdb.TYPE_UTINYINT, "USMALLINT": duckdb.TYPE_USMALLINT,
	"UINTEGER": duckdb.TYPE_UINTEGER, "UBIGINT": duckdb.TYPE_UBIGINT, "FLOAT": duckdb.TYPE_FLOAT,
	"DOUBLE": duckdb.TYPE_DOUBLE, "BOOLEAN": duckdb.TYPE_BOOLEAN, "VARCHAR": duckdb.TYPE_VARCHAR,
}

func columnInfos(cols []Column) []duckdb.ColumnInfo {
	out := make([]duckdb.ColumnInfo, len(cols))
	for i, c := range cols {
		ti, err := duckdb.NewTypeInfo(duckTypes[c.Type])
		if err != nil {
			panic(fmt.Sprintf("tracesql: column %s type %s: %v", c.Name, c.Type, err)) // the catalog's own types
		}
		out[i] = duckdb.ColumnInfo{Name: c.Name, T: ti}
	}
	return out
}

// selectionArgs are the parameters every event table's function takes:
// cycles and unit (” for none). The SQL names them through a table macro
// (openSQL): duckdb-go fails a bind when a named parameter is left out.
func selectionArgs() []duckdb.TypeInfo {
	v, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return []duckdb.TypeInfo{v, v, v}
}

// groupedMode is the third argument that makes an event table's function
// scan a unit's blocks on one thread, in cycle order (the Parquet export).
const groupedMode = "grouped"

// hasSelection reports whether table t takes the selection parameters.
func hasSelection(t string) bool {
	switch t {
	case "units", "formats", "categories", "metadata", "blocks":
		return false
	}
	return true
}

// register registers table t's function on conn (DuckDB's catalog is the
// database's: every connection sees it).
func (d *DB) register(conn *sql.Conn, t Table) error {
	cfg := duckdb.TableFunctionConfig{Arguments: selectionArgs()}
	name := funcName(t.Name)
	var kind scanKind
	var ft *fmtTable
	switch t.Name {
	case "events":
		kind = kindEvents
	case "flows":
		kind = kindFlows
	case "counters":
		kind = kindCounters
	case "spans":
		return duckdb.RegisterTableUDF(conn, name, duckdb.ChunkTableFunction{
			Config: cfg,
			BindArguments: func(_ map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
				qs, err := d.selection(args)
				if err != nil {
					return nil, err
				}
				return d.newSpanScan(t.Columns, qs), nil
			},
		})
	case "units", "formats", "categories", "metadata", "blocks":
		return duckdb.RegisterTableUDF(conn, name, duckdb.ChunkTableFunction{
			Config: duckdb.TableFunctionConfig{},
			BindArguments: func(map[string]any, ...any) (duckdb.ChunkTableSource, error) {
				return &rowsSource{cols: t.Columns, rows: d.staticRows(t.Name)}, nil
			},
		})
	default:
		kind = kindFormat
		for _, f := range d.fmts {
			if f.Name == t.Name {
				ft = f
			}
		}
	}
	return duckdb.RegisterTableUDF(conn, name, duckdb.ParallelChunkTableFunction{
		Config: cfg,
		BindArguments: func(_ map[string]any, args ...any) (duckdb.ParallelChunkTableSource, error) {
			qs, err := d.selection(args)
			if err != nil {
				return nil, err
			}
			mode, _ := args[2].(string)
			return d.newEventScan(kind, ft, t.Columns, qs, mode == groupedMode), nil
		},
	})
}

// selection turns a table function's named parameters into one query per
// trace: the database's selection narrowed by the parameters.
func (d *DB) selection(args []any) ([]mmapio.Query, error) {
	start, end, hasCycles := d.cfg.start, d.cfg.end, d.cfg.hasCycles
	if s, _ := args[0].(string); s != "" {
		a, b, err := ParseCycles(s)
		if err != nil {
			return nil, err
		}
		if !hasCycles {
			start, end = 0, math.MaxUint64
		}
		start, end, hasCycles = max(start, a), min(end, b), true
	}
	unit, _ := args[1].(string)
	hasUnit := unit != ""
	qs := make([]mmapio.Query, len(d.traces))
	matched := false
	for i, t := range d.traces {
		q := mmapio.Query{}
		if hasCycles {
			q = q.WithCycles(start, end) // start > end selects nothing
		}
		ids, restricted := t.units, t.hasUnits
		if hasUnit {
			mine, err := unitsOf(t, unit)
			if err != nil {
				return nil, err
			}
			if restricted {
				mine = intersect(ids, mine)
			}
			ids, restricted = mine, true
			matched = matched || len(mine) > 0
		}
		if restricted {
			q = q.WithUnits(ids...)
		}
		qs[i] = q
	}
	if hasUnit && !matched {
		return nil, fmt.Errorf("unit := %q: no unit name %s", unit, unitsel.Describe(unit))
	}
	return qs, nil
}

func intersect(a, b []uint16) []uint16 {
	in := map[uint16]bool{}
	for _, x := range a {
		in[x] = true
	}
	var out []uint16
	for _, x := range b {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// unitsOf resolves a unit parameter: the units it selects as trace_reader's
// --unit does (unitsSelected), or, written "#1,2,3", those ids (the Parquet
// export's batches).
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
