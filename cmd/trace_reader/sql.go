package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/chronon-sim/chronon-go/tracesql"
)

const sqlSummary = `Runs SQL (DuckDB) on the traces, read in place: no import step. With -c,
runs QUERY (statements separated by ';') and prints the last result; without
-c, reads the statements from standard input, or opens a prompt on a
terminal (.tables, .schema T, .quit; history with the arrow keys). A script
(-c or standard input) takes dot commands on their own lines too, as the
duckdb shell does.

--cycles and --unit (one) narrow every table, as filter's do. Several files:
every table gains a first column, trace (each file's label as dump prints
it: rank3 from the file's metadata, else its name; a second rank3 is
rank3#2). A directory is a dataset (export --dataset): its Parquet files. The same tables as Parquet files:
trace_reader export --format parquet -o DIR FILE...`

// writeSQLTables prints the tables with their columns (help sql).
func writeSQLTables(w io.Writer) {
	fmt.Fprint(w, "\nTables (each event table also takes the selection as parameters, e.g.\n"+
		"events(cycles := '9000000-9001000', unit := 'core1.l2'): only the blocks that\n"+
		"overlap are decoded):\n")
	for i, t := range tracesql.FixedTables() {
		writeTable(w, t)
		if i == 0 {
			fmt.Fprintf(w, "  <format>   one per format, named by its first word (decode uop={} dst={}\n"+
				"             -> decode; clashes get _<format_id>): cycle, unit, unit_id, then one\n"+
				"             column per argument, named by the name= before it, else argN,\n"+
				"             typed as the argument (UInt64 -> UBIGINT, Bool -> BOOLEAN, ...)\n"+
				"  <span>     one per named span: its rows of spans\n")
		}
	}
	fmt.Fprint(w, "\nA generated name that is a keyword (fetch, at), one of DuckDB's functions or\n"+
		"tables (range) or one of ours (events) ends with '_': fetch pc={} is table\n"+
		"fetch_. \"end\" is a keyword in SQL: quote it (SELECT \"end\" FROM spans).\n"+
		"time and end_time (seconds) are there only when the trace has a time base\n"+
		"(file-wide or per unit): a trace without one has cycles only.\n"+
		"Exit status: 0 ok; 1 a bad file, a SQL error, or more memory than --memory gives\n"+
		"(one line on stderr); 2 usage.\n")
}

func writeTable(w io.Writer, t tracesql.Table) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	fmt.Fprintf(w, "  %-10s %s\n             (%s)\n", t.Name, t.Doc, strings.Join(cols, ", "))
}
