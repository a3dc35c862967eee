//go:build cgo

package tracesql

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// parquetTables are the tables ExportParquet writes, in order, with the
// per-format tables in place of "<format>" and the spans' tables (read
// back from spans' files) in place of "<span>": every table of the
// database, so that a dataset of many runs answers what one file does
// (which units, formats and metadata each run had, its blocks).
var parquetTables = []string{"events", "<format>", "spans", "<span>", "counters", "flows", "units", "formats", "categories", "metadata", "blocks"}

// ExportParquet writes the database's tables (events, every per-format
// table, spans, every span's table, counters, flows, then the schema's and
// the footer's: units, formats, categories, metadata, blocks) as Parquet
// under dir, one directory per table: dir/<table>/part-0.parquet, part-1
// ... with DuckDB's own writer: zstd (level 1: as small as level 3 on
// traces, at half the CPU), row groups of 1M rows (what scan engines split
// work by), strings dictionary-encoded where that pays (unit, format), rows
// in cycle order (so sorted within every unit) and a window filter skips
// row groups by their statistics. The events table leaves out message
// (rendered text: the per-format tables hold its values, typed). It
// returns the files written.
func (d *DB) ExportParquet(dir string) ([]string, error) {
	if d.dataset != "" {
		return nil, fmt.Errorf("%s is a dataset already: export the traces it was made from", d.dataset)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	_, restore, err := d.parquetThreads()
	if err != nil {
		return nil, err
	}
	defer restore()
	var files []string
	for _, name := range parquetTables {
		for _, t := range d.Tables() {
			if !(name == "<format>" && t.Format != "" || name == "<span>" && t.Span != "" || t.Name == name) {
				continue
			}
			out := filepath.Join(dir, t.Name)
			if err := os.RemoveAll(out); err != nil {
				return files, err
			}
			st := copyStatement(t, out)
			if t.Span != "" {
				spans, err := parquetFiles(filepath.Join(dir, "spans"))
				if err != nil {
					return files, err
				}
				st = copySpanStatement(t, spans, out)
			}
			if _, err := d.sqldb.Exec(st); err != nil {
				return files, fmt.Errorf("parquet %s: %w", t.Name, err)
			}
			parts, err := parquetFiles(out)
			if err != nil {
				return files, err
			}
			files = append(files, parts...)
		}
	}
	return files, nil
}

// parquetThreadBytes is what each DuckDB thread of a Parquet export holds
// beyond the decoded blocks: the row group it fills (1M rows of every
// column) and its compression buffers. Measured on W1 (5M events, 16
// units): peak RSS 277 MB with one thread, 402-443 MB with two.
const parquetThreadBytes = 128 << 20

// parquetThreads lowers DuckDB's threads for the export so that their
// row groups fit the memory budget (WithMemoryBudget; at least one
// thread), and returns what restores the setting.
func (d *DB) parquetThreads() (n int64, restore func(), err error) {
	limit := d.cfg.budget
	if limit == 0 {
		limit = mmapio.DefaultMemoryBudget
	}
	want := max(1, limit/parquetThreadBytes)
	var cur int64
	if err := d.sqldb.QueryRow("SELECT current_setting('threads')::BIGINT").Scan(&cur); err != nil {
		return 0, nil, err
	}
	if cur <= want {
		return cur, func() {}, nil
	}
	if _, err := d.sqldb.Exec(fmt.Sprintf("SET threads = %d", want)); err != nil {
		return 0, nil, err
	}
	return want, func() { d.sqldb.Exec(fmt.Sprintf("SET threads = %d", cur)) }, nil
}

// parquetFiles lists the Parquet files in dir.
func parquetFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".parquet") {
			files = append(files, filepath.Join(dir, e.Name()))
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
	from := fmt.Sprintf("%s(%s := '%s')", quoteIdent(funcName(t.Name)), modeParam, groupedMode)
	if !hasSelection(t.Name) { // the schema's and the footer's: a few rows
		from = quoteIdent(t.Name)
	}
	if t.Format != "" {
		from = fmt.Sprintf("%s(%s, %s := '%s')", formatFunc, quoteString(t.Name), modeParam, groupedMode)
	}
	return fmt.Sprintf("COPY (SELECT %s FROM %s) TO %s (%s)", sel, from, quoteString(out), parquetOptions)
}

// copySpanStatement is the COPY that writes span table t into directory
// out from the spans table's files.
func copySpanStatement(t Table, spans []string, out string) string {
	quoted := make([]string, len(spans))
	for i, f := range spans {
		quoted[i] = quoteString(f)
	}
	return fmt.Sprintf("COPY (SELECT * EXCLUDE (name) FROM read_parquet([%s]) WHERE name = %s) TO %s (%s)",
		strings.Join(quoted, ", "), quoteString(t.Span), quoteString(out), parquetOptions)
}

// parquetOptions are the COPY options of every table.
var parquetOptions = fmt.Sprintf("FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 1048576, FILE_SIZE_BYTES %d, FILENAME_PATTERN 'part-{i}'", parquetFileBytes)
