//go:build cgo

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// parquetMain runs `export --format parquet -o DIR FILE...`: the event
// tables as Parquet, one directory per table (tracesql.ExportParquet).
func parquetMain(args []string, stdout, stderr io.Writer) int {
	c, err := parseSQLArgs("export", args)
	if err == nil && !c.help && c.output == "" {
		err = fmt.Errorf("needs -o DIR")
	}
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: export: %s\n%s\n", oneLine(err.Error()), usageHint("export"))
		return 2
	}
	if c.help {
		fmt.Fprint(stdout, parquetUsage)
		return 0
	}
	for _, f := range c.files {
		if sameFile(f, c.output) {
			fmt.Fprintf(stderr, "trace_reader: export: -o %s is an input file\n", c.output)
			return 2
		}
	}
	db, err := tracesql.Open(c.files, c.opts...)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: %s\n", oneLine(err.Error()))
		return 1
	}
	defer db.Close()
	files, err := db.ExportParquet(c.output)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: export: %s\n", sqlErrLine(err))
		return 1
	}
	if c.verbose {
		var total int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		fmt.Fprintf(stderr, "export: %d Parquet files, %d bytes, under %s\n", len(files), total, c.output)
	}
	return 0
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

const parquetUsage = `Usage: trace_reader export --format parquet [--cycles A-B] [--unit NAME] -o DIR FILE...

Writes the event tables of trace_reader sql as Parquet: DIR/<table>/part-*.parquet
for events (without message), every per-format table, spans, counters and
flows (zstd, row groups of 1M rows, rows in unit, cycle order). Spark, Trino,
DuckDB, pandas and polars read them. Several files: a trace column.

Options:
  --cycles START-END     Only events with START <= cycle <= END
  --unit NAME            Only events of units whose name contains NAME
  -o, --output DIR       The output directory (created; a table's directory is replaced)
  -v, --verbose          Print the files and bytes written
  -h, --help             Show this help
`
