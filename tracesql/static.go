//go:build cgo

package tracesql

import (
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/schema"
)

// rowsSource serves a small table held in memory (the schema's units,
// formats, categories, the metadata, the block index).
type rowsSource struct {
	cols []Column
	rows [][]any
	next int
}

func (s *rowsSource) ColumnInfos() []duckdb.ColumnInfo { return columnInfos(s.cols) }
func (s *rowsSource) Cardinality() *duckdb.CardinalityInfo {
	return &duckdb.CardinalityInfo{Cardinality: uint(len(s.rows)), Exact: true}
}
func (s *rowsSource) Init() {}

func (s *rowsSource) FillChunk(chunk duckdb.DataChunk) error {
	n := min(len(s.rows)-s.next, duckdb.GetDataChunkCapacity())
	for row := range n {
		for c, v := range s.rows[s.next+row] {
			if err := chunk.SetValue(c, row, v); err != nil {
				return err
			}
		}
	}
	s.next += n
	return chunk.SetSize(n)
}

// staticRows builds the rows of a schema or footer table, over every
// trace (a leading trace column when there are several).
func (d *DB) staticRows(name string) [][]any {
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
				add(f.ID, string(t.fmtNames[f.ID]), sqlText(f.Format.Format), kindName(f.Kind),
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

func kindName(k schema.EventKind) string {
	switch k {
	case schema.KindSpanBegin:
		return "span_begin"
	case schema.KindSpanEnd:
		return "span_end"
	case schema.KindSpanComplete:
		return "span_complete"
	case schema.KindCounter:
		return "counter"
	}
	return "instant"
}
