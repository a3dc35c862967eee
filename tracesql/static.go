//go:build cgo

package tracesql

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/chronon-sim/chronon-go/schema"
)

// staticTable serves a small table held in memory (the schema's units,
// formats, categories, the metadata, the block index).
type staticTable struct {
	cols []Column
	rows [][]any
	// n and rowsOf, when rowsOf is set: the rows' count, and what makes
	// them when a query first reads them (rows).
	n      int
	rowsOf func() [][]any
	once   sync.Once
}

func (s *staticTable) columns() []Column { return s.cols }
func (s *staticTable) cardinality() (uint64, bool) {
	if s.rowsOf != nil {
		return uint64(s.n), true
	}
	return uint64(len(s.rows)), true
}

func (s *staticTable) start(cols []int) (execution, error) {
	if s.rowsOf != nil {
		s.once.Do(func() { s.rows = s.rowsOf() })
	}
	return &staticRun{s: s, cols: cols}, nil
}

// staticRun writes the rows on one thread.
type staticRun struct {
	s    *staticTable
	cols []int
	next int
}

func (r *staticRun) threads() int      { return 1 }
func (r *staticRun) local() scanThread { return r }

func (r *staticRun) fill(out *chunk) error {
	n := min(len(r.s.rows)-r.next, vectorSize)
	for row := range n {
		vals := r.s.rows[r.next+row]
		for oc, c := range r.cols {
			if c < 0 {
				continue
			}
			switch v := vals[c].(type) {
			case nil:
				out.setNull(oc, row)
			case string:
				out.setString(oc, row, []byte(v))
			case uint16:
				column[uint16](out, oc)[row] = v
			case uint32:
				column[uint32](out, oc)[row] = v
			case uint64:
				column[uint64](out, oc)[row] = v
			default:
				return fmt.Errorf("tracesql: static value %T", v) // the tables' own types
			}
		}
	}
	r.next += n
	out.setSize(n)
	return nil
}

// staticCount is how many rows staticRows(name) makes.
func (d *DB) staticCount(name string) int {
	n := 0
	for _, t := range d.traces {
		r := t.r
		switch name {
		case "units":
			n += len(r.Units())
		case "formats":
			n += len(r.Formats())
		case "categories":
			n += len(r.Categories())
		case "metadata":
			n += len(r.Metadata())
		case "blocks":
			n += len(r.Blocks())
		}
	}
	return n
}

// staticRows builds the rows of a schema or footer table, over every
// trace (a leading trace column when there are several).
func (d *DB) staticRows(name string) [][]any {
	if name == "formats" {
		d.naming() // the name column: the formats' tables
	}
	var rows [][]any
	for _, t := range d.traces {
		r := t.r
		add := func(vals ...any) {
			if d.multi {
				vals = append([]any{t.name}, vals...)
			}
			rows = append(rows, vals)
		}
		switch name {
		case "units":
			counts := map[uint16]uint64{}
			for _, us := range r.UnitStats() {
				counts[us.UnitID] = us.Written
			}
			for _, u := range r.Units() {
				var n any
				if c, ok := counts[u.ID]; ok {
					n = c
				}
				add(u.ID, sqlText(u.Name), sqlText(u.TypeName), n)
			}
		case "formats":
			for _, f := range r.Formats() {
				types := make([]string, len(f.ArgTypes))
				names := make([]string, len(f.ArgTypes))
				for i, at := range f.ArgTypes {
					types[i] = at.String()
					names[i] = f.ArgName(i)
				}
				add(f.ID, string(t.fmtNames.get(f.ID)), sqlText(f.Format.Format), kindName(f.Kind),
					strings.Join(types, ","), sqlText(strings.Join(names, ",")), sqlText(f.File), f.Line, f.Category)
			}
		case "categories":
			for _, c := range r.Categories() {
				add(c.Mask, sqlText(c.Name), sqlText(c.Description))
			}
		case "metadata":
			for _, kv := range r.Metadata() {
				add(sqlText(kv.Key), sqlText(kv.Value))
			}
		case "blocks":
			for _, b := range r.Blocks() {
				var units any
				if b.Units != nil {
					ids := make([]string, len(b.Units))
					for i, u := range b.Units {
						ids[i] = strconv.Itoa(int(u))
					}
					units = strings.Join(ids, ",")
				}
				add(b.Index, b.EventCount, b.MinCycle, b.MaxCycle, b.DataOffset, b.CompressedSize, b.UncompressedSize, units)
			}
		}
	}
	return rows
}

// kindName is k as the formats table spells it: the schema's name with
// '_' for '-' (span_begin, async_end), as identifiers are written.
func kindName(k schema.EventKind) string { return strings.ReplaceAll(k.String(), "-", "_") }
