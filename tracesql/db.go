//go:build cgo

package tracesql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// DB is a DuckDB database whose tables read one or more traces.
type DB struct {
	sqldb  *sql.DB
	traces []*trace
	multi  bool
	timed  bool // some trace has a time base: the tables have a time column
	cfg    config
	budget *budget

	// names are what generated names avoid (names.go).
	names *reservedNames
	// parseConn is the connection names are parsed on (parses), held
	// apart so that naming never waits for the pool.
	parseConn *sql.Conn
	parseMu   sync.Mutex

	// The per-format tables: the writers' names (span tables) are given
	// when the database opens, the others by naming, when a query first
	// needs them (a trace may have 100k formats and a query read none).
	namer     *namer
	named     sync.Once
	fmts      []*fmtTable
	fmtLower  map[string]*fmtTable // by strings.ToLower(name), for names that have upper-case letters
	fmtBuilds atomic.Int64         // per-format tables built (tests: none before a query names one)
	// dataset is the directory of a dataset database (Parquet files),
	// whose tables are dsTables; "" for traces.
	dataset  string
	dsTables []Table
	skipped  []SkippedFile // a dataset's damaged files, left out (WithSkipDamaged)

	argDecodes  atomic.Int64 // events whose arguments a scan walked (tests: projection pushdown)
	noPushdown  bool         // tests: Query rewrites table names only (the answers with no pushdown)
	serialSpans bool         // tests: spans read every trace on one thread (spanpar.go)
	spanTasks   atomic.Int64 // tasks of the last spans scan in parallel, 0: serial (tests)

	impossible impossibleSpans // complete spans the span scans left out
}

// trace is one open file and what the scans need of it, computed once.
type trace struct {
	r         *mmapio.Reader
	name      string // the trace column: the file's label
	nameBytes []byte
	unitNames [][]byte          // by unit id ("" none)
	unitStrs  []string          // the same as strings
	fmtNames  *formatNames      // table names by format id, once named (DB.naming)
	timeBases []schema.TimeBase // by unit id; the file's for an id without one
	fileTime  schema.TimeBase
	symbols   *schema.Schema
	// sel is the database's selection (Open's options) in this trace.
	sel selection
}

// Open maps the traces and returns a database with their tables
// registered. Close it to unmap them.
func Open(paths []string, opts ...Option) (*DB, error) {
	if len(paths) == 0 {
		return nil, errors.New("tracesql: no trace file")
	}
	var cfg config
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	d := &DB{multi: len(paths) > 1, cfg: cfg}
	limit := cfg.budget
	if limit == 0 {
		limit = mmapio.DefaultMemoryBudget
	}
	d.budget = newBudget(limit)
	dir, dataset := datasetDir(paths)
	connected := make(chan error, 1)
	if dataset {
		connected <- d.connect()
	} else {
		// DuckDB starts while the traces are mapped (the schema of a trace
		// of 100k formats takes longer to read than DuckDB to start).
		go func() { connected <- d.connect() }()
	}
	var err error
	if !dataset {
		err = d.mapTraces(paths)
	}
	if cerr := <-connected; cerr != nil {
		d.Close()
		return nil, cerr
	}
	if err == nil && dataset {
		err = d.openDataset(dir)
	} else if err == nil {
		d.nameWriters()
		err = d.registerTables()
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// mapTraces maps the traces and reads what their tables need of them,
// apart from the names (nameWriters, naming).
func (d *DB) mapTraces(paths []string) error {
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
		var ropts []mmapio.Option
		if d.cfg.budget > 0 {
			ropts = append(ropts, mmapio.WithMemoryBudget(d.cfg.budget))
		}
		r, err := mmapio.Open(p, ropts...)
		if err != nil {
			return err
		}
		t := &trace{r: r}
		d.traces = append(d.traces, t)
		t.sel = d.optionSelection(t)
		if d.cfg.hasUnit {
			matched = matched || len(t.sel.unitIDs()) > 0
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
	for _, t := range d.traces {
		d.timed = d.timed || hasTimeBase(t.r)
		t.prepare()
	}
	return nil
}

// nameWriters names the tables of the names writers gave (spans, async
// spans: few, and the span tables are views made when the database
// opens); naming names the others.
func (d *DB) nameWriters() {
	d.namer = newNamer(d.Readers(), d.multi, d.timed, d.cfg.runNames, d.names)
	d.namer.pass(true)
}

// naming names the tables of the formats a writer gave no name (their
// first words), once: the first query that needs a per-format table, the
// formats' names or the list of tables does.
func (d *DB) naming() {
	d.named.Do(func() {
		if d.namer == nil { // a dataset
			return
		}
		d.namer.pass(false)
		d.fmts = d.namer.tables
		d.fmtLower = map[string]*fmtTable{}
		for _, ft := range d.fmts {
			if l := strings.ToLower(ft.Name); l != ft.Name && ft.Format != "" && d.fmtLower[l] == nil {
				d.fmtLower[l] = ft
			}
		}
		for i, t := range d.traces {
			t.fmtNames = &d.namer.fmtNames[i]
		}
	})
}

// built returns ft with its columns, built on first use.
func (d *DB) built(ft *fmtTable) *fmtTable {
	if ft.build(d.names) {
		d.fmtBuilds.Add(1)
	}
	return ft
}

// hasTimeBase reports whether r's cycles have a time: the file's time base
// or a unit's.
func hasTimeBase(r *mmapio.Reader) bool {
	s := r.Schema()
	if !s.TimeBase.IsZero() {
		return true
	}
	for _, u := range s.Units {
		if !u.TimeBase.IsZero() {
			return true
		}
	}
	return false
}

func (t *trace) prepare() {
	t.nameBytes = []byte(t.name)
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
	s := t.r.Schema()
	t.symbols, t.fileTime = s, s.TimeBase
	t.timeBases = make([]schema.TimeBase, maxID+1)
	for id := range t.timeBases {
		t.timeBases[id] = s.TimeBaseOf(uint16(id))
	}
}

// timeBase is the time base of unit u's cycles (zero: none).
func (t *trace) timeBase(u uint16) schema.TimeBase {
	if int(u) < len(t.timeBases) {
		return t.timeBases[u]
	}
	return t.fileTime
}

// program is format id's compiled text (nil: an unknown format), compiled
// by the reader when it opened.
func (t *trace) program(id uint32) *ctext.Format { return rawread.Program(t.r.Format(id)) }

// symbol is the text of interned string id.
func (t *trace) symbol(id uint32) []byte { return []byte(sqlText(t.symbols.SymbolText(id))) }

func (t *trace) unitName(id uint16) []byte {
	if int(id) < len(t.unitNames) {
		return t.unitNames[id]
	}
	return nil
}

// connect opens the DuckDB database and reads what generated names must
// avoid: its keywords, its table functions and macros, its tables and
// views.
func (d *DB) connect() error {
	conn, err := duckdb.NewConnector("", nil)
	if err != nil {
		return err
	}
	duckdb.RegisterReplacementScan(conn, d.replacement)
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
	if d.parseConn, err = d.sqldb.Conn(ctx); err != nil {
		return err
	}
	d.names = newReservedNames(keywords, taken, d.parses)
	return nil
}

// parses reports whether query parses (what it names need not exist): it
// is parsed only, never bound, so that naming, which may run inside
// DuckDB's replacement scan, never calls back into it.
func (d *DB) parses(query string) bool {
	d.parseMu.Lock()
	defer d.parseMu.Unlock()
	ok := false
	err := d.parseConn.Raw(func(dc any) error {
		c, isDuck := dc.(*duckdb.Conn)
		if !isDuck {
			return fmt.Errorf("tracesql: not a duckdb-go connection: %T", dc)
		}
		mc, err := connOf(c)
		if err != nil {
			return err
		}
		var stmts mapping.ExtractedStatements
		ok = mapping.ExtractStatements(mc, query, &stmts) > 0
		mapping.DestroyExtracted(&stmts)
		return nil
	})
	return err == nil && ok
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
	for _, t := range d.namer.tables { // the writers' names: the span tables are named
		if t.Span != "" {
			spanTables = append(spanTables, t.Table) // views on spans, once spans is there
		}
	}
	if err := d.register(c); err != nil {
		return fmt.Errorf("tracesql: %w", err)
	}
	// The views answer FROM t; FROM t(cycles := ..., unit := ...) calls the
	// macro of the same name (a view and a macro may share a name).
	var views strings.Builder
	for _, t := range d.fixedTables() {
		if !hasSelection(t.Name) {
			fmt.Fprintf(&views, "CREATE VIEW %s AS SELECT * FROM %s();\n", quoteIdent(t.Name), quoteIdent(funcName(t.Name)))
			continue
		}
		sel := "*"
		if len(functionColumns(t)) > len(t.Columns) {
			sel = "* EXCLUDE (" + anyColumn + ")"
		}
		fmt.Fprintf(&views, "CREATE MACRO %[1]s(cycles := NULL, unit := NULL, %[2]s := NULL) AS TABLE SELECT %[3]s FROM %[4]s(cycles := cycles, unit := unit, %[2]s := %[2]s);\n",
			quoteIdent(t.Name), pushdownParam, sel, quoteIdent(funcName(t.Name)))
		fmt.Fprintf(&views, "CREATE VIEW %[1]s AS SELECT * FROM %[1]s();\n", quoteIdent(t.Name))
	}
	if _, err := c.ExecContext(ctx, views.String()); err != nil {
		return fmt.Errorf("tracesql: %w", err)
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
// one's). It is SQL().Query with the query's predicates on cycle and unit
// pushed down to the seek index (pushdown.go), and a hint added to a
// syntax error at a keyword that names a table by another name (FROM
// fetch: the table is fetch_).
func (d *DB) Query(query string, args ...any) (*sql.Rows, error) {
	if d.dataset == "" { // a dataset's tables are Parquet files, narrowed by DuckDB
		query = d.rewrite(query)
	}
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
// trace column when several traces are open, a time column when their
// cycles have a time). A dataset's are its directories'.
func (d *DB) Tables() []Table { return d.tables(true) }

// tableHeads are the tables Tables lists without their columns.
func (d *DB) tableHeads() []Table { return d.tables(false) }

// tables lists the tables, each per-format table with its columns (built
// on first use) when columns is set, else only its name and format.
func (d *DB) tables(columns bool) []Table {
	if d.dataset != "" {
		return slices.Clone(d.dsTables)
	}
	d.naming()
	fixed := d.fixedTables()
	out := []Table{fixed[0]}
	for _, f := range d.fmts {
		if columns {
			out = append(out, d.built(f).Table)
		} else {
			out = append(out, Table{Name: f.Name, Format: f.Format, Span: f.Span})
		}
	}
	return append(out, fixed[1:]...)
}

// TableNames lists the names of the tables Tables lists, in its order,
// without making their columns (a trace may have 100k formats).
func (d *DB) TableNames() []string {
	var out []string
	for _, t := range d.tableHeads() {
		out = append(out, t.Name)
	}
	return out
}

// fixedTables are the tables every database has, with its columns.
func (d *DB) fixedTables() []Table {
	out := make([]Table, len(fixedTables))
	for i, t := range fixedTables {
		var cols []Column
		if d.multi {
			cols = append(cols, leadColumn("trace"))
		}
		for _, c := range t.Columns {
			if isTimeColumn(c.Name) && !d.timed {
				continue
			}
			cols = append(cols, c)
		}
		t.Columns = cols
		out[i] = t
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
	if d.parseConn != nil {
		err = d.parseConn.Close()
	}
	if d.sqldb != nil {
		err = errors.Join(err, d.sqldb.Close())
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

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
