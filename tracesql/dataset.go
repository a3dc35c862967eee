//go:build cgo

package tracesql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A dataset is a directory of Parquet files with a directory per table:
// DIR/<table>/trace=<label>/part-*.parquet (PublishPartition: Hive partitions,
// one per trace), or DIR/<table>/part-*.parquet (ExportParquet). Open
// given such a directory makes a view per table over its files; in a
// partitioned dataset the trace column comes first, from the partitions'
// names, as when several traces are open.

// datasetDir reports whether paths is one directory.
func datasetDir(paths []string) (string, bool) {
	if len(paths) != 1 {
		return "", false
	}
	st, err := os.Stat(paths[0])
	return paths[0], err == nil && st.IsDir()
}

// openDataset registers a view per table directory of dir.
func (d *DB) openDataset(dir string) error {
	if d.cfg.hasCycles || d.cfg.hasUnit {
		return fmt.Errorf("%s: a dataset is read whole: select cycles and units in SQL (WHERE cycle BETWEEN ..., WHERE unit = ...)", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") { // an export's temporaries
			continue
		}
		files, hive, err := tableFiles(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if len(files) == 0 {
			continue
		}
		err = d.createDatasetView(ctx, name, files, hive)
		if err != nil {
			// A damaged file fails the whole view: find which, and leave
			// them out or say which.
			var bad []SkippedFile
			files, bad = d.readableFiles(ctx, name, files)
			if len(bad) == 0 {
				return fmt.Errorf("%s: table %s: %s", dir, name, firstLine(err))
			}
			if !d.cfg.skipDamaged {
				return fmt.Errorf("%s: table %s: %s: %w (%s)", dir, name, bad[0].Path, ErrDamagedFile, bad[0].Reason)
			}
			d.skipped = append(d.skipped, bad...)
			if len(files) == 0 {
				continue
			}
			if err := d.createDatasetView(ctx, name, files, hive); err != nil {
				return fmt.Errorf("%s: table %s: %s", dir, name, firstLine(err))
			}
		}
		t := Table{Name: name, Doc: "the Parquet files of " + filepath.Join(dir, name)}
		if t.Columns, err = d.describe(ctx, name); err != nil {
			return fmt.Errorf("%s: table %s: %s", dir, name, firstLine(err))
		}
		d.dsTables = append(d.dsTables, t)
	}
	if len(d.dsTables) == 0 {
		return fmt.Errorf("%s: a directory with no table of Parquet files (DIR/<table>/part-*.parquet, or DIR/<table>/trace=<label>/part-*.parquet)", dir)
	}
	// The order of the tables of a trace: events, the per-format ones,
	// then spans, counters, flows.
	rank := func(t Table) int {
		switch i := slices.IndexFunc(fixedTables, func(f Table) bool { return f.Name == t.Name }); i {
		case 0:
			return 0
		case -1:
			return 1
		default:
			return 1 + i
		}
	}
	slices.SortStableFunc(d.dsTables, func(a, b Table) int { return rank(a) - rank(b) })
	d.dataset = dir
	return nil
}

// createDatasetView makes the view of table name over its files.
func (d *DB) createDatasetView(ctx context.Context, name string, files []string, hive bool) error {
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = quoteString(f)
	}
	src := fmt.Sprintf("read_parquet([%s], union_by_name = true)", strings.Join(quoted, ", "))
	sel := "*"
	if hive {
		// The label stays a string (rank3, or a file's name such as 7).
		src = fmt.Sprintf("read_parquet([%s], hive_partitioning = true, hive_types = {'trace': 'VARCHAR'}, union_by_name = true)", strings.Join(quoted, ", "))
		sel = "trace, * EXCLUDE (trace)"
	}
	_, err := d.sqldb.ExecContext(ctx, fmt.Sprintf("CREATE VIEW %s AS SELECT %s FROM %s", quoteIdent(name), sel, src))
	return err
}

// ErrDamagedFile is what Open's error wraps when a dataset's Parquet file
// cannot be read (without WithSkipDamaged).
var ErrDamagedFile = errors.New("a damaged Parquet file")

// SkippedFile is a damaged Parquet file of a dataset, left out of its
// table (WithSkipDamaged).
type SkippedFile struct {
	Path   string
	Table  string
	Reason string // DuckDB's, one line
}

// Skipped lists the damaged files of the dataset left out of its tables
// (WithSkipDamaged), in the tables' order.
func (d *DB) Skipped() []SkippedFile { return d.skipped }

// readableFiles splits a table's files into those whose schema DuckDB
// reads and the others (cut short, footer damaged), asking of each alone.
func (d *DB) readableFiles(ctx context.Context, table string, files []string) (ok []string, bad []SkippedFile) {
	for _, f := range files {
		rows, err := d.sqldb.QueryContext(ctx, fmt.Sprintf("DESCRIBE SELECT * FROM read_parquet(%s)", quoteString(f)))
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil {
			bad = append(bad, SkippedFile{Path: f, Table: table, Reason: firstLine(err)})
			continue
		}
		ok = append(ok, f)
	}
	return ok, bad
}

// firstLine is an error's first line: DuckDB adds lines that quote our
// own SQL (LINE 1: ... ^), which mean nothing to the user.
func firstLine(err error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(s)
}

// tableFiles lists the Parquet files of a table directory: those of its
// trace=<label> partitions (hive), or those directly in it.
func tableFiles(dir string) (files []string, hive bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, false, nil // a file beside the tables
		}
		return nil, false, err
	}
	var direct []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case strings.HasSuffix(e.Name(), ".parquet"):
			direct = append(direct, p)
		case strings.HasPrefix(e.Name(), partitionPrefix):
			parts, err := os.ReadDir(p)
			if err != nil {
				return nil, false, err
			}
			for _, f := range parts {
				if !strings.HasPrefix(f.Name(), ".") && strings.HasSuffix(f.Name(), ".parquet") {
					files = append(files, filepath.Join(p, f.Name()))
				}
			}
			hive = true
		}
	}
	if hive && len(direct) > 0 {
		return nil, false, fmt.Errorf("%s holds both Parquet files and trace= partitions: one export or the other", dir)
	}
	if !hive {
		files = direct
	}
	return files, hive, nil
}

// describe lists a view's columns.
func (d *DB) describe(ctx context.Context, view string) ([]Column, error) {
	rows, err := d.sqldb.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+quoteIdent(view)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []Column
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Name, &c.Type); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// hint adds to a syntax error at a keyword that a table is named after
// (FROM fetch) the table's name (fetch_), and to DuckDB's "column not
// found" for a column renamed by the keyword rule (an argument where=,
// asked for as "where") the column's name (where_).
func (d *DB) hint(err error) error {
	const at = `syntax error at or near "`
	msg := err.Error()
	first, rest, _ := strings.Cut(msg, "\n")
	i := strings.Index(msg, at)
	if i < 0 {
		if word, ok := missingColumn(first); ok {
			if cols := d.renamedColumns(lowerASCII(word)); cols != "" {
				return &hintError{fmt.Sprintf("%s (%s is a keyword: %s)\n%s", first, word, cols, rest), err}
			}
		}
		return err
	}
	word, _, _ := strings.Cut(msg[i+len(at):], `"`)
	lw := lowerASCII(word)
	// The tables named after the keyword: word_ (a span's or a format's)
	// and word_<id> (a format that met a span of its name).
	var named []string
	if d.names.tableKeywords[lw] {
		for _, t := range d.tableHeads() {
			if n, ok := strings.CutPrefix(t.Name, lw+"_"); ok && strings.Trim(n, "0123456789") == "" {
				switch {
				case t.Span != "":
					named = append(named, fmt.Sprintf("%s (spans %s)", t.Name, t.Span))
				case t.Format != "":
					named = append(named, fmt.Sprintf("%s (format %q)", t.Name, t.Format))
				default:
					named = append(named, t.Name)
				}
			}
		}
	}
	// A bare keyword may be meant as a renamed column as well (SELECT
	// select FROM order_): both are named.
	cols := d.renamedColumns(lw)
	if cols != "" {
		cols = "; " + cols
	}
	switch {
	case len(named) == 1:
		return &hintError{fmt.Sprintf("%s (%s is a keyword: the table is %s%s)\n%s", first, word, named[0], cols, rest), err}
	case len(named) > 1:
		return &hintError{fmt.Sprintf("%s (%s is a keyword: the tables are %s%s)\n%s", first, word, strings.Join(named, ", "), cols, rest), err}
	case cols != "":
		return &hintError{fmt.Sprintf("%s (%s is a keyword: %s)\n%s", first, word, cols[2:], rest), err}
	}
	// A column named like a keyword (spans' end): quoted. The fixed tables
	// first (a span's table has spans' columns too).
	for _, t := range append(FixedTables(), d.Tables()...) {
		for _, c := range t.Columns {
			if c.Name == lw {
				return &hintError{fmt.Sprintf("%s (%s is a keyword: write the column %s.%s as \"%s\")\n%s", first, word, t.Name, lw, lw, rest), err}
			}
		}
	}
	return err
}

// missingColumn returns the column DuckDB's binder did not find, from the
// first line of its error: `Referenced column "where" not found in FROM
// clause!`, `Table "t" does not have a column named "where"`, or (t.where,
// which it takes for a struct's field) `Cannot extract field 'where' from
// expression "t"`.
func missingColumn(line string) (string, bool) {
	for _, q := range []struct{ pre, end string }{
		{`Referenced column "`, `"`},
		{`does not have a column named "`, `"`},
		{`Cannot extract field '`, `'`},
	} {
		if i := strings.Index(line, q.pre); i >= 0 {
			word, _, ok := strings.Cut(line[i+len(q.pre):], q.end)
			return word, ok && word != ""
		}
	}
	return "", false
}

// renamedColumns says which columns the keyword rule named after word
// ("the column is req_in_begin.where_"), or "" when none was: word is not
// a keyword, or no argument had that name.
func (d *DB) renamedColumns(word string) string {
	if d.names == nil {
		return ""
	}
	renamed := d.names.columnName(word)
	if renamed == word {
		return ""
	}
	var tables []string
	for _, t := range d.Tables() {
		for _, c := range t.Columns {
			if c.Name == renamed {
				tables = append(tables, t.Name)
				break
			}
		}
	}
	const show = 5
	switch {
	case len(tables) == 0:
		return ""
	case len(tables) == 1:
		return fmt.Sprintf("the column is %s.%s", tables[0], renamed)
	case len(tables) <= show:
		return fmt.Sprintf("the column is %s, in %s", renamed, strings.Join(tables, ", "))
	default:
		return fmt.Sprintf("the column is %s, in %s and %d more tables", renamed, strings.Join(tables[:show], ", "), len(tables)-show)
	}
}

type hintError struct {
	msg string
	err error
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Unwrap() error { return e.err }
