package tracesql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// Column is one column of a table: its name, its DuckDB type and what it
// holds.
type Column struct {
	Name string
	Type string // DuckDB type name: UBIGINT, VARCHAR, ...
	Doc  string
}

// Table is one table of the database.
type Table struct {
	Name    string
	Doc     string
	Columns []Column
	// Format is the format text of a per-format table ("" for the others).
	Format string
}

// Fixed tables, in the order --help and .tables list them. The per-format
// tables come after events.
var (
	cycleColumn = Column{"cycle", "UBIGINT", "the event's cycle"}
	// timeColumn is there only when a trace has a time base.
	timeColumn = Column{"time", "DOUBLE", "the cycle's time in seconds, by its unit's time base, else the file's (NULL: none; the column exists when a trace has a time base)"}
	seqColumn  = Column{"seq", "UBIGINT", "the event's place in its file: block << 32 | position in the block; dump prints events by (cycle, seq)"}

	eventsColumns = []Column{
		cycleColumn, timeColumn,
		{"unit", "VARCHAR", "name of its unit ('' for none)"},
		{"unit_id", "USMALLINT", "its unit id (0: none)"},
		seqColumn,
		{"format", "VARCHAR", "name of its format's table ('' for an unknown format)"},
		{"format_id", "UINTEGER", "its format id"},
		{"category", "UINTEGER", "its category mask (low 32 bits)"},
		{"source_id", "USMALLINT", "the event's source_id field (its unit id)"},
		{"message", "VARCHAR", "the rendered text, as dump prints it (rendered only when read)"},
	}
	spansColumns = []Column{
		{"unit", "VARCHAR", "unit of the span"},
		{"lane", "UBIGINT", "its lane argument (0 when the format has none)"},
		{"name", "VARCHAR", "the span's name (the format's)"},
		{"start", "UBIGINT", "first cycle"},
		{"end", "UBIGINT", "cycle it ended (begin/end: the end event's; complete: start + dur)"},
		{"dur", "UBIGINT", "end - start"},
		{"flow", "UBIGINT", "flow id of the opening event, NULL when none"},
		{"span", "UBIGINT", "the span's number: its begin's seq (a complete span's own), the same whatever the selection"},
		{"id", "UBIGINT", "an async span's id (role Id), NULL for the spans of lanes"},
		{"parent", "UBIGINT", "the span number of its parent (role Parent, resolved as the exporters do), NULL when none or not found"},
	}
	countersColumns = []Column{
		{"unit", "VARCHAR", "unit of the sample"},
		{"name", "VARCHAR", "counter name (the format's)"},
		{"cycle", "UBIGINT", "cycle of the sample"},
		timeColumn,
		{"value", "DOUBLE", "sampled value"},
		seqColumn,
	}
	flowsColumns = []Column{
		{"flow", "UBIGINT", "flow id"},
		{"cycle", "UBIGINT", "cycle of the event carrying it"},
		timeColumn,
		{"unit", "VARCHAR", "unit of that event"},
		{"format", "VARCHAR", "name of that event's format table"},
		seqColumn,
	}
	unitsColumns = []Column{
		{"unit_id", "USMALLINT", "unit id"},
		{"unit", "VARCHAR", "dotted name"},
		{"type", "VARCHAR", "type name"},
		{"events", "UBIGINT", "events written for it, as the footer counts them (NULL: no unit stats)"},
	}
	formatsColumns = []Column{
		{"format_id", "UINTEGER", "format id"},
		{"name", "VARCHAR", "its table's name"},
		{"format", "VARCHAR", "the format text"},
		{"kind", "VARCHAR", "instant, span_begin, span_end, span_complete, counter, flush, async_begin, async_end or retire"},
		{"arg_types", "VARCHAR", "argument types, comma-separated"},
		{"arg_names", "VARCHAR", "argument (column) names, comma-separated"},
		{"file", "VARCHAR", "source file that registered it"},
		{"line", "UINTEGER", "source line"},
		{"category", "UBIGINT", "category mask"},
	}
	categoriesColumns = []Column{
		{"mask", "UBIGINT", "category bit"},
		{"name", "VARCHAR", "name"},
		{"description", "VARCHAR", "description"},
	}
	metadataColumns = []Column{
		{"key", "VARCHAR", "metadata key"},
		{"value", "VARCHAR", "its value"},
	}
	blocksColumns = []Column{
		{"block", "UINTEGER", "index in file order"},
		{"events", "UINTEGER", "events it holds"},
		{"min_cycle", "UBIGINT", "first cycle"},
		{"max_cycle", "UBIGINT", "last cycle"},
		{"offset", "UBIGINT", "file offset of its header"},
		{"compressed_size", "UINTEGER", "bytes stored"},
		{"uncompressed_size", "UINTEGER", "bytes decoded"},
		{"units", "VARCHAR", "ids of the units it holds, comma-separated (NULL: not recorded)"},
	}
)

// fixedTables are the tables every database has, by name.
var fixedTables = []Table{
	{Name: "events", Doc: "one row per event", Columns: eventsColumns},
	{Name: "spans", Doc: "one row per span (begin/end pairs and complete spans)", Columns: spansColumns},
	{Name: "counters", Doc: "one row per counter sample", Columns: countersColumns},
	{Name: "flows", Doc: "one row per event carrying a flow id", Columns: flowsColumns},
	{Name: "units", Doc: "the schema's units", Columns: unitsColumns},
	{Name: "formats", Doc: "the schema's formats", Columns: formatsColumns},
	{Name: "categories", Doc: "the schema's categories", Columns: categoriesColumns},
	{Name: "metadata", Doc: "the run's metadata", Columns: metadataColumns},
	{Name: "blocks", Doc: "the footer's block index", Columns: blocksColumns},
}

// FixedTables returns the tables every database has (per-format tables
// depend on the trace: see Catalog).
func FixedTables() []Table { return slices.Clone(fixedTables) }

// fmtTable is a per-format table: its name and columns, and the format id
// it reads in each trace (-1: the trace has no such format).
type fmtTable struct {
	Table
	types  []schema.ArgType
	symbol []bool  // by argument: an interned string (role Symbol), read as its text
	ids    []int64 // by trace
}

// sqlType is the DuckDB type of an argument type.
func sqlType(t schema.ArgType) string {
	switch t {
	case schema.ArgInt8:
		return "TINYINT"
	case schema.ArgInt16:
		return "SMALLINT"
	case schema.ArgInt32:
		return "INTEGER"
	case schema.ArgInt64:
		return "BIGINT"
	case schema.ArgUInt8:
		return "UTINYINT"
	case schema.ArgUInt16:
		return "USMALLINT"
	case schema.ArgUInt32:
		return "UINTEGER"
	case schema.ArgUInt64, schema.ArgPointer:
		return "UBIGINT"
	case schema.ArgFloat:
		return "FLOAT"
	case schema.ArgDouble:
		return "DOUBLE"
	case schema.ArgBool:
		return "BOOLEAN"
	}
	return "VARCHAR" // ArgString
}

// tableBase is the table name a format's text gives: its first word,
// lower-cased, as an identifier ("" when the text starts with no letter).
func tableBase(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_', c >= '0' && c <= '9' && b.Len() > 0:
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			return b.String()
		}
	}
	return b.String()
}

// ident makes an argument name a column name: letters, digits and '_',
// lower-cased, not starting with a digit.
func ident(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "a" + out
	}
	return out
}

// argColumns names the argument columns of a format: the name before each
// placeholder (Format.ArgName), else argN; a name that repeats one before
// it, or one of the leading columns, gets a suffix.
func argColumns(f *mmapio.Format, lead []string) []Column {
	taken := map[string]bool{}
	for _, l := range lead {
		taken[l] = true
	}
	cols := make([]Column, len(f.ArgTypes))
	for i, t := range f.ArgTypes {
		typ := sqlType(t)
		if f.Role(i) == schema.RoleSymbol {
			typ = "VARCHAR"
		}
		name := ident(f.ArgName(i))
		if f.ArgName(i) == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		for k := 2; taken[name]; k++ {
			name = fmt.Sprintf("%s_%d", strings.TrimRight(name, "0123456789_"), k)
		}
		taken[name] = true
		cols[i] = Column{Name: name, Type: typ, Doc: fmt.Sprintf("argument %d (%s)", i, t)}
	}
	return cols
}

// buildFormatTables names a table for every format of every trace. A name
// is the format's first word; a clash (another format with the same word, a
// fixed table's name) gets _<format_id>. Traces share a table when their
// formats have the same name and argument types.
func buildFormatTables(readers []*mmapio.Reader, multi, timed bool) ([]*fmtTable, map[*mmapio.Format]string) {
	var tables []*fmtTable
	byName := map[string]*fmtTable{}
	names := map[*mmapio.Format]string{}
	for _, t := range fixedTables {
		byName[t.Name] = nil
	}
	lead := []string{"cycle", "time", "unit", "unit_id", "seq"}
	if !timed {
		lead = slices.DeleteFunc(lead, func(s string) bool { return s == "time" })
	}
	if multi {
		lead = append([]string{"trace"}, lead...)
	}
	for ti, r := range readers {
		seenID := map[uint32]bool{}
		for _, f := range r.Formats() {
			if seenID[f.ID] { // the reader uses the first entry of an id
				continue
			}
			seenID[f.ID] = true
			base := tableBase(f.Format.Format)
			if base == "" {
				base = "format"
			}
			name := base
			for k := 0; ; k++ {
				t, used := byName[name]
				if !used {
					break
				}
				if t != nil && t.ids[ti] < 0 && slices.Equal(t.types, f.ArgTypes) && slices.Equal(t.symbol, symbolArgs(f)) {
					break // the same format in another trace
				}
				name = fmt.Sprintf("%s_%d", base, f.ID)
				if k > 0 {
					name = fmt.Sprintf("%s_%d_%d", base, f.ID, k)
				}
			}
			t := byName[name]
			if t == nil {
				t = &fmtTable{types: f.ArgTypes, symbol: symbolArgs(f), ids: make([]int64, len(readers))}
				for i := range t.ids {
					t.ids[i] = -1
				}
				t.Name, t.Format = name, f.Format.Format
				t.Doc = "events of format " + strconvQuote(f.Format.Format)
				for _, l := range lead {
					t.Columns = append(t.Columns, leadColumn(l))
				}
				t.Columns = append(t.Columns, argColumns(f, lead)...)
				byName[name] = t
				tables = append(tables, t)
			}
			t.ids[ti] = int64(f.ID)
			names[f] = name
		}
	}
	return tables, names
}

func leadColumn(name string) Column {
	if name == "trace" {
		return Column{"trace", "VARCHAR", "the trace (its rank, else its file name)"}
	}
	for _, c := range eventsColumns {
		if c.Name == name {
			return c
		}
	}
	panic("tracesql: no lead column " + name)
}

// symbolArgs says which arguments of f are interned strings.
func symbolArgs(f *mmapio.Format) []bool {
	out := make([]bool, len(f.ArgTypes))
	for i := range out {
		out[i] = f.Role(i) == schema.RoleSymbol
	}
	return out
}

// strconvQuote quotes a format text for a doc line, escaped.
func strconvQuote(s string) string { return `"` + tracetext.EscapeText(s) + `"` }
