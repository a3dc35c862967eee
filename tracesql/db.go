//go:build cgo

package tracesql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// DB is a DuckDB database whose tables read one or more traces.
type DB struct {
	sqldb  *sql.DB
	traces []*trace
	multi  bool
	fmts   []*fmtTable
	cfg    config

	unitEnum, fmtEnum duckdb.TypeInfo
	// names are what generated names avoid (names.go).
	names *reservedNames
	// dataset is the directory of a dataset database (Parquet files),
	// whose tables are dsTables; "" for traces.
	dataset  string
	dsTables []Table

	argDecodes atomic.Int64 // events whose arguments a scan walked (tests: projection pushdown)
}

// trace is one open file and what the scans need of it, computed once.
type trace struct {
	r         *mmapio.Reader
	name      string   // the trace column: the file's label
	unitNames [][]byte // by unit id ("" none)
	unitStrs  []string // the same as strings (ENUM values are set as strings)
	fmtNames  map[uint32][]byte
	fmtStrs   map[uint32]string
	fmtByID   []*mmapio.Format // dense by id when ids are small, else nil
	// The database's selection (Open's options) in this trace.
	hasUnits bool
	units    []uint16
}

// Open maps the traces and returns a database with their tables
// registered. Close it to unmap them.
func Open(paths []string, opts ...Option) (*DB, error) {
	if len(paths) == 0 {
		return nil, errors.New("tracesql: no trace file")
	}
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	d := &DB{multi: len(paths) > 1, cfg: cfg}
	if err := d.connect(); err != nil {
		d.Close()
		return nil, err
	}
	var err error
	if dir, ok := datasetDir(paths); ok {
		err = d.openDataset(dir)
	} else if err = d.openTraces(paths); err == nil {
		err = d.registerTables()
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *DB) openTraces(paths []string) error {
	if d.cfg.hasUnit {
		if err := unitsel.Check(d.cfg.unit); err != nil {
			return fmt.Errorf("unit %q: %v", d.cfg.unit, err)
		}
	}
	matched := false
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return fmt.Errorf("%s is a directory: a dataset (export --dataset) is read alone, not with other files", p)
		}
		r, err := mmapio.Open(p)
		if err != nil {
			return err
		}
		t := &trace{r: r}
		d.traces = append(d.traces, t)
		if d.cfg.hasUnit {
			t.hasUnits, t.units = true, unitsSelected(r, d.cfg.unit)
			matched = matched || len(t.units) > 0
		}
	}
	if d.cfg.hasUnit && !matched {
		return fmt.Errorf("no unit name %s", unitsel.Describe(d.cfg.unit))
	}
	readers := d.Readers()
	// The trace column holds each file's label, as dump names its units
	// (rank3, else the file's name; rank3#2 for a second rank 3).
	for i, l := range mmapio.Labels(readers) {
		d.traces[i].name = sqlText(l)
	}
	tables, names := buildFormatTables(readers, d.multi, d.names)
	d.fmts = tables
	for _, t := range d.traces {
		t.prepare(names)
	}
	return d.buildEnums()
}

func (t *trace) prepare(names map[*mmapio.Format]string) {
	maxID := 0
	for _, u := range t.r.Units() {
		maxID = max(maxID, int(u.ID))
	}
	t.unitNames = make([][]byte, maxID+1)
	t.unitStrs = make([]string, maxID+1)
	for id := range t.unitNames {
		t.unitStrs[id] = sqlText(t.r.UnitName(uint16(id)))
		t.unitNames[id] = []byte(t.unitStrs[id])
	}
	t.fmtNames = map[uint32][]byte{}
	t.fmtStrs = map[uint32]string{}
	maxF := uint32(0)
	for _, f := range t.r.Formats() {
		if _, ok := t.fmtNames[f.ID]; !ok {
			t.fmtNames[f.ID] = []byte(names[f])
			t.fmtStrs[f.ID] = names[f]
		}
		maxF = max(maxF, f.ID)
	}
	if maxF < 1<<16 {
		t.fmtByID = make([]*mmapio.Format, maxF+1)
		for id := range t.fmtByID {
			t.fmtByID[id] = t.r.Format(uint32(id))
		}
	}
}

func (t *trace) unitName(id uint16) []byte {
	if int(id) < len(t.unitNames) {
		return t.unitNames[id]
	}
	return nil
}

func (t *trace) unitStr(id uint16) string {
	if int(id) < len(t.unitStrs) {
		return t.unitStrs[id]
	}
	return ""
}

// buildEnums makes the ENUM types the scans fill unit and format with:
// setting an ENUM value is a lookup in Go, a VARCHAR one a call into C per
// row. The views cast them back to VARCHAR (in C++, a dictionary lookup).
func (d *DB) buildEnums() error {
	units, fmts := map[string]bool{"": true}, map[string]bool{"": true}
	for _, t := range d.traces {
		for _, u := range t.unitStrs {
			units[u] = true
		}
		for _, f := range t.fmtStrs {
			fmts[f] = true
		}
	}
	var err error
	if d.unitEnum, err = enumOf(units); err != nil {
		return err
	}
	d.fmtEnum, err = enumOf(fmts)
	return err
}

func enumOf(set map[string]bool) (duckdb.TypeInfo, error) {
	vals := slices.Sorted(maps.Keys(set))
	return duckdb.NewEnumInfo(vals[0], vals[1:]...)
}

// connect opens the DuckDB database and reads what generated names must
// avoid: its keywords, its table functions and macros, its tables and
// views.
func (d *DB) connect() error {
	conn, err := duckdb.NewConnector("", nil)
	if err != nil {
		return err
	}
	d.sqldb = sql.OpenDB(conn)
	ctx := context.Background()
	if d.cfg.threads > 0 {
		if _, err := d.sqldb.ExecContext(ctx, fmt.Sprintf("SET threads = %d", d.cfg.threads)); err != nil {
			return err
		}
	}
	kw, err := d.strings(ctx, "SELECT keyword_name || ' ' || keyword_category FROM duckdb_keywords()")
	if err != nil {
		return err
	}
	keywords := map[string]string{}
	for _, k := range kw {
		name, cat, _ := strings.Cut(k, " ")
		keywords[name] = cat
	}
	taken, err := d.strings(ctx, `SELECT function_name FROM duckdb_functions() WHERE function_type IN ('table', 'table_macro')
		UNION SELECT table_name FROM duckdb_tables() WHERE schema_name IN ('main', 'pg_catalog')
		UNION SELECT view_name FROM duckdb_views() WHERE schema_name IN ('main', 'pg_catalog')`)
	if err != nil {
		return err
	}
	d.names = newReservedNames(keywords, taken, d.parses)
	return nil
}

// parses reports whether query parses: running it fails, but not with a
// parser error (what it names does not exist yet).
func (d *DB) parses(query string) bool {
	rows, err := d.sqldb.Query(query)
	if err == nil {
		rows.Close()
		return true
	}
	return !strings.HasPrefix(err.Error(), "Parser Error")
}

// strings runs a query whose rows are one string each.
func (d *DB) strings(ctx context.Context, query string) ([]string, error) {
	rows, err := d.sqldb.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// registerTables registers the table functions and the views and macros
// that name them; a span's table is a view on spans.
func (d *DB) registerTables() error {
	ctx := context.Background()
	c, err := d.sqldb.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var spanTables []Table
	for _, t := range d.Tables() {
		if t.Span != "" {
			spanTables = append(spanTables, t) // once spans is there
			continue
		}
		if err := d.register(c, t); err != nil {
			return fmt.Errorf("tracesql: table %s: %w", t.Name, err)
		}
		// The view answers FROM t, the macro FROM t(cycles := ..., unit := ...).
		fn := quoteIdent(funcName(t.Name))
		stmts := []string{fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM %s()", quoteIdent(t.Name), fn)}
		if hasSelection(t.Name) {
			sel := selectList(t)
			stmts = []string{
				fmt.Sprintf("CREATE VIEW %s AS SELECT %s FROM %s('', '', '') AS ctrace_t", quoteIdent(t.Name), sel, fn),
				fmt.Sprintf("CREATE MACRO %s(cycles := '', unit := '') AS TABLE SELECT %s FROM %s(coalesce(cycles, ''), coalesce(unit, ''), '') AS ctrace_t", quoteIdent(t.Name), sel, fn),
			}
		}
		for _, st := range stmts {
			if _, err := c.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("tracesql: table %s: %w", t.Name, err)
			}
		}
	}
	for _, t := range spanTables {
		for _, st := range []string{
			fmt.Sprintf("CREATE VIEW %s AS SELECT * EXCLUDE (name) FROM spans WHERE name = %s", quoteIdent(t.Name), quoteString(t.Span)),
			fmt.Sprintf("CREATE MACRO %s(cycles := '', unit := '') AS TABLE SELECT * EXCLUDE (name) FROM spans(cycles := cycles, unit := unit) WHERE name = %s", quoteIdent(t.Name), quoteString(t.Span)),
		} {
			if _, err := c.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("tracesql: table %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// SQL returns the database: its connections see every table.
func (d *DB) SQL() *sql.DB { return d.sqldb }

// Query runs a query (statements separated by ';': the rows are the last
// one's). It is SQL().Query with a hint added to a syntax error at a
// keyword that names a table by another name (FROM fetch: the table is
// fetch_).
func (d *DB) Query(query string, args ...any) (*sql.Rows, error) {
	rows, err := d.sqldb.Query(query, args...)
	if err != nil {
		return nil, d.hint(err)
	}
	return rows, nil
}

// Readers returns the open traces, in the order Open was given them.
func (d *DB) Readers() []*mmapio.Reader {
	rs := make([]*mmapio.Reader, len(d.traces))
	for i, t := range d.traces {
		rs[i] = t.r
	}
	return rs
}

// Tables lists the database's tables: events, the per-format tables (and
// the spans' tables), then the others, each with its columns (a leading
// trace column when several traces are open). A dataset's are its
// directories'.
func (d *DB) Tables() []Table {
	if d.dataset != "" {
		return slices.Clone(d.dsTables)
	}
	var out []Table
	add := func(t Table) {
		if d.multi && t.Format == "" && t.Span == "" {
			t.Columns = append([]Column{leadColumn("trace")}, t.Columns...)
		}
		out = append(out, t)
	}
	add(fixedTables[0])
	for _, f := range d.fmts {
		add(f.Table)
	}
	for _, t := range fixedTables[1:] {
		add(t)
	}
	return out
}

// ArgDecodes returns how many events the scans so far walked the arguments
// of: none for queries that read no argument column (and not message).
func (d *DB) ArgDecodes() int64 { return d.argDecodes.Load() }

// BlocksDecoded returns how many blocks the scans so far decoded, over all
// traces.
func (d *DB) BlocksDecoded() int64 {
	var n int64
	for _, t := range d.traces {
		n += rawread.Decodes(t.r)
	}
	return n
}

// Close closes the database and unmaps the traces.
func (d *DB) Close() error {
	var err error
	if d.sqldb != nil {
		err = d.sqldb.Close()
	}
	return errors.Join(err, d.closeTraces())
}

func (d *DB) closeTraces() error {
	var err error
	for _, t := range d.traces {
		err = errors.Join(err, t.r.Close())
	}
	d.traces = nil
	return err
}

// enumColumn reports whether column c of table t is filled as an ENUM.
func enumColumn(t, c string) bool {
	return (c == "unit" || c == "format") && t != "spans" && t != "counters" || c == "unit" && t == "counters"
}

// selectList is the view's select list: every column, the ENUM ones cast
// to VARCHAR.
func selectList(t Table) string {
	var casts []string
	for _, c := range t.Columns {
		if enumColumn(t.Name, c.Name) {
			// Qualified: in the macro, a bare unit is its parameter.
			casts = append(casts, fmt.Sprintf("ctrace_t.%s::VARCHAR AS %s", c.Name, c.Name))
		}
	}
	if len(casts) == 0 {
		return "*"
	}
	return "* REPLACE (" + strings.Join(casts, ", ") + ")"
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
