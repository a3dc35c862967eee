package tracesql

import (
	"slices"
	"sync"

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
	// Span is the span name of a span's table ("" for the others): its
	// rows are the spans of that name, as in spans.
	Span string
}

// Fixed tables, in the order --help and .tables list them. The per-format
// tables come after events.
var (
	cycleColumn = Column{"cycle", "UBIGINT", "the event's cycle"}
	// timeColumn is there only when a trace has a time base.
	timeColumn = Column{"time", "DOUBLE", "the cycle's time in seconds, by its unit's time base, else the file's (NULL: none; the column exists when a trace has a time base)"}
	// spanTimeColumn and spanEndTimeColumn are a span's start and end in
	// seconds, there only when a trace has a time base (last, so that the
	// other columns keep their places).
	spanTimeColumn    = Column{"time", "DOUBLE", "start's time in seconds, by its unit's time base, else the file's (NULL: none; the column exists when a trace has a time base)"}
	spanEndTimeColumn = Column{"end_time", "DOUBLE", "end's time in seconds, as time (end_time - time: the duration in seconds)"}
	seqColumn         = Column{"seq", "UBIGINT", "the event's place in its file: block << 32 | position in the block; dump prints events by (cycle, seq)"}

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
		{"parent_id", "UBIGINT", "the parent id its begin recorded (role Parent), NULL when none (0): with parent NULL, a parent id that named no span"},
		spanTimeColumn, spanEndTimeColumn,
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
		{"file_offset", "UBIGINT", "file offset of its header (offset is a keyword)"},
		{"compressed_size", "UINTEGER", "bytes stored"},
		{"uncompressed_size", "UINTEGER", "bytes decoded"},
		{"units", "VARCHAR", "ids of the units it holds, comma-separated (NULL: not recorded)"},
	}
)

// isTimeColumn reports whether a fixed table's column is one of the time
// columns, there only when a trace has a time base.
func isTimeColumn(name string) bool { return name == "time" || name == "end_time" }

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
// depend on the trace: see DB.Tables).
func FixedTables() []Table { return slices.Clone(fixedTables) }

// fmtTable is a per-format table (or a span's table): its name, the
// format id it reads in each trace (-1: the trace has no such format), and
// once built (build) its doc line and columns.
type fmtTable struct {
	Table
	f      *mmapio.Format // the format it was named for
	lead   []string       // the columns before the arguments
	types  []schema.ArgType
	ids    []int64 // by trace
	pos    int     // its first format's place (namingOrder): the tables' order
	once   sync.Once
	symbol []bool // by argument: an interned string (role Symbol), read as its text; set by build
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
