//go:build cgo

package tracesql

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ParquetTables are the tables ExportParquet writes, with the per-format
// tables in place of "<format>".
var parquetTables = []string{"events", "<format>", "spans", "counters", "flows"}

// ExportParquet writes the database's event tables (events, every
// per-format table, spans, counters, flows) as Parquet under dir, one
// directory per table: dir/<table>/part-0.parquet, part-1 ... with DuckDB's
// own writer: zstd (level 1: as small as level 3 on traces, at half the
// CPU), row groups of 1M rows (what scan engines split work
// by), strings dictionary-encoded where that pays (unit, format), rows in
// cycle order (so sorted within every unit) and a window filter skips row
// groups by their statistics. The events table
// leaves out message (rendered text: the per-format tables hold its
// values, typed). It returns the files written.
func (d *DB) ExportParquet(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, name := range parquetTables {
		tables := []Table{}
		for _, t := range d.Tables() {
			if name == "<format>" && t.Format != "" || t.Name == name {
				tables = append(tables, t)
			}
		}
		for _, t := range tables {
			out := filepath.Join(dir, t.Name)
			if err := os.RemoveAll(out); err != nil {
				return files, err
			}
			if _, err := d.sqldb.Exec(copyStatement(t, out)); err != nil {
				return files, fmt.Errorf("parquet %s: %w", t.Name, err)
			}
			parts, err := filepath.Glob(filepath.Join(out, "*.parquet"))
			if err != nil {
				return files, err
			}
			files = append(files, parts...)
		}
	}
	return files, nil
}

// parquetFileBytes is the size at which a table's output starts its next
// part file.
const parquetFileBytes = 1 << 30

// copyStatement is the COPY that writes table t into directory out. The
// event tables are read in their functions' grouped mode: a DuckDB thread
// takes all the blocks of one unit and reads them in cycle order, and the
// Parquet writer keeps each thread's rows in order, so a unit's rows come
// out in cycle order, with no sort (which would hold the whole table in
// memory, and interleaving the units would compress worse). Spans come in
// the order they end.
func copyStatement(t Table, out string) string {
	sel := "*"
	if t.Name == "events" {
		sel = "* EXCLUDE (message, " + anyColumn + ")"
	}
	from := fmt.Sprintf("%s(%s := '%s')", funcName(t.Name), modeParam, groupedMode)
	if t.Format != "" {
		from = fmt.Sprintf("%s('%s', %s := '%s')", formatFunc, strings.ReplaceAll(t.Name, "'", "''"), modeParam, groupedMode)
	}
	return fmt.Sprintf("COPY (SELECT %s FROM %s) TO '%s' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 1048576, FILE_SIZE_BYTES %d, FILENAME_PATTERN 'part-{i}')",
		sel, from, strings.ReplaceAll(out, "'", "''"), parquetFileBytes)
}
