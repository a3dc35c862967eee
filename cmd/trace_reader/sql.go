package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// Commands that parse their own command line (several files, -c QUERY):
// sql, and export --format parquet. run hands them their arguments before
// the single-file parser sees them.
func selfParsed(args []string, stdout, stderr io.Writer) (int, bool) {
	switch {
	case len(args) >= 1 && args[0] == "sql":
		return sqlMain(args[1:], stdout, stderr), true
	case len(args) == 2 && args[0] == "help" && args[1] == "sql":
		writeSQLHelp(stdout)
		return 0, true
	case len(args) >= 1 && args[0] == "export" && isParquet(args[1:]):
		return parquetMain(args[1:], stdout, stderr), true
	}
	return 0, false
}

// isParquet reports whether an export command line asks for --format parquet.
func isParquet(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--format=parquet" || a == "--format" && i+1 < len(args) && args[i+1] == "parquet" {
			return true
		}
	}
	return false
}

const sqlUsage = `Usage: trace_reader sql [--csv|--json] [--cycles A-B] [--unit NAME] FILE... [-c QUERY]

Runs SQL (DuckDB) on the traces, read in place: no import step. With -c,
runs QUERY (statements separated by ';') and prints the last result; without
-c, reads the statements from standard input, or opens a prompt on a
terminal (.tables, .schema T, .quit; history with the arrow keys).

Options:
  -c, --command QUERY    The SQL to run
  --csv                  CSV with a header row instead of an aligned table
  --json                 JSON: an array of objects, one per row
  --cycles START-END     Every table keeps only events with START <= cycle <= END
  --unit NAME            Every table keeps only events of the units NAME selects, as
                         filter --unit does (one --unit)
  -h, --help             Show this help

Several files: every table gains a first column, trace (the rank the file's
metadata records, else its file name).

The same tables as Parquet files, for Spark, Trino, DuckDB, pandas, polars:
trace_reader export --format parquet [--cycles A-B] [--unit NAME] -o DIR FILE...
writes DIR/<table>/part-*.parquet for events (without message), every
per-format table, spans, counters and flows.

Tables (each event table also takes the selection as parameters, e.g.
events(cycles := '9000000-9001000', unit := 'core1.l2'): only the blocks that
overlap are decoded):
`

// writeSQLHelp prints the sql usage and the tables with their columns.
func writeSQLHelp(w io.Writer) {
	fmt.Fprint(w, sqlUsage)
	for i, t := range tracesql.FixedTables() {
		writeTable(w, t)
		if i == 0 {
			fmt.Fprintf(w, "  <format>   one per format, named by its first word (fetch pc=0x{:x} taken={}\n"+
				"             -> fetch; clashes get _<format_id>): cycle, unit, unit_id, then one\n"+
				"             column per argument, named by the name= before it, else argN,\n"+
				"             typed as the argument (UInt64 -> UBIGINT, Bool -> BOOLEAN, ...)\n")
		}
	}
	fmt.Fprint(w, "\n\"end\" is a keyword in SQL: quote it (SELECT \"end\" FROM spans).\n"+
		"Exit status: 0 ok; 1 a bad file, a SQL error (one line on stderr); 2 usage.\n")
}

func writeTable(w io.Writer, t tracesql.Table) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	fmt.Fprintf(w, "  %-10s %s\n             (%s)\n", t.Name, t.Doc, strings.Join(cols, ", "))
}
