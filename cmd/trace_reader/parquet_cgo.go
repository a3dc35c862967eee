//go:build cgo

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
		if err := notInput(f, c.output); err != nil {
			fmt.Fprintf(stderr, "trace_reader: export: %s\n", err)
			return 2
		}
	}
	// The tables go to a temporary directory beside DIR, renamed into place
	// when complete: a failed or interrupted export leaves no partial
	// files, and an existing DIR is never mixed with another run's tables.
	existed := false
	if st, err := os.Stat(c.output); err == nil {
		if !st.IsDir() {
			fmt.Fprintf(stderr, "trace_reader: export: %s exists and is not a directory\n", c.output)
			return 1
		}
		if ents, err := os.ReadDir(c.output); err != nil || len(ents) > 0 {
			fmt.Fprintf(stderr, "trace_reader: export: %s exists and is not empty (its tables would mix with this export's): remove it or name another\n", c.output)
			return 1
		}
		existed = true
	}
	db, err := tracesql.Open(c.files, c.opts...)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: %s\n", oneLine(err.Error()))
		return 1
	}
	defer db.Close()
	_, tmp, err := createTemp(filepath.Clean(c.output), true)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: export: %s: cannot create: %v\n", c.output, pathErr(err))
		return 1
	}
	defer func() { os.RemoveAll(tmp); forgetTemp(tmp) }()
	files, err := db.ExportParquet(tmp)
	if err == nil {
		if existed {
			err = os.Remove(c.output) // empty (checked above): the export takes its place
		}
		if err == nil {
			err = os.Rename(tmp, c.output)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: export: %s\n", strings.ReplaceAll(sqlErrLine(err), tmp, c.output))
		return 1
	}
	for i, f := range files {
		files[i] = filepath.Join(c.output, strings.TrimPrefix(f, tmp))
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

const parquetUsage = `Usage: trace_reader export --format parquet [--cycles A-B] [--unit NAME] -o DIR FILE...

Writes the event tables of trace_reader sql as Parquet: DIR/<table>/part-*.parquet
for events (without message), every per-format table, spans, counters and
flows (zstd, row groups of 1M rows, rows in unit, cycle order). Spark, Trino,
DuckDB, pandas and polars read them. Several files: a trace column.

Options:
  --cycles START-END     Only events with START <= cycle <= END
  --unit NAME            Only events of the units NAME selects, as filter --unit (one)
  -o, --output DIR       The output directory (created; a table's directory is replaced)
  -v, --verbose          Print the files and bytes written
  -h, --help             Show this help
`
