//go:build cgo

package tracesql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// DB is a DuckDB database whose tables read one or more traces.
type DB struct {
	sqldb     *sql.DB
	traces    []*trace
	multi     bool
	timed     bool // some trace has a time base: the tables have a time column
	fmts      []*fmtTable
	fmtByName map[string]*fmtTable // and by lower-case name
	cfg       config
	budget    *budget

	// reserved are the table names the SQL parser takes for keywords (a
	// table named fetch): Query quotes them.
	reserved map[string]bool

	argDecodes atomic.Int64 // events whose arguments a scan walked (tests: projection pushdown)
	noPushdown bool         // tests: Query rewrites table names only (the answers with no pushdown)
}

// trace is one open file and what the scans need of it, computed once.
type trace struct {
	r         *mmapio.Reader
	name      string // the trace column
	nameBytes []byte
	unitNames [][]byte // by unit id ("" none)
	unitStrs  []string // the same as strings
	fmtNames  map[uint32][]byte
	progs     map[uint32]*ctext.Format // compiled for message
	timeBases []schema.TimeBase        // by unit id; the file's for an id without one
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
	if err := d.openTraces(paths); err != nil {
		d.closeTraces()
		return nil, err
	}
	if err := d.openSQL(); err != nil {
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
		var ropts []mmapio.Option
		if d.cfg.budget > 0 {
			ropts = append(ropts, mmapio.WithMemoryBudget(d.cfg.budget))
		}
		r, err := mmapio.Open(p, ropts...)
		if err != nil {
			return err
		}
		t := &trace{r: r, name: traceName(r)}
		d.traces = append(d.traces, t)
		t.sel = d.optionSelection(t)
		if d.cfg.hasUnit {
			matched = matched || len(t.sel.unitIDs()) > 0
		}
	}
	if d.cfg.hasUnit && !matched {
		return fmt.Errorf("no unit name %s", unitsel.Describe(d.cfg.unit))
	}
	// Two files with the same base name (and no rank) keep their paths.
	seen := map[string]int{}
	for _, t := range d.traces {
		seen[t.name]++
	}
	for _, t := range d.traces {
		if seen[t.name] > 1 && !hasRank(t.r) {
			t.name = t.r.Path()
		}
	}
	readers := make([]*mmapio.Reader, len(d.traces))
	for i, t := range d.traces {
		readers[i] = t.r
		d.timed = d.timed || hasTimeBase(t.r)
	}
	tables, names := buildFormatTables(readers, d.multi, d.timed)
	d.fmts = tables
	d.fmtByName = make(map[string]*fmtTable, 2*len(tables))
	for _, ft := range tables {
		d.fmtByName[ft.Name] = ft
	}
	for _, ft := range tables { // a lower-case spelling never hides a table's own name
		if _, ok := d.fmtByName[strings.ToLower(ft.Name)]; !ok {
			d.fmtByName[strings.ToLower(ft.Name)] = ft
		}
	}
	for _, t := range d.traces {
		t.prepare(names)
	}
	return nil
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

func hasRank(r *mmapio.Reader) bool {
	for _, kv := range r.Metadata() {
		if kv.Key == "rank" && kv.Value != "" {
			return true
		}
	}
	return false
}

// traceName is the rank the writer recorded, else the file's base name.
func traceName(r *mmapio.Reader) string {
	for _, kv := range r.Metadata() {
		if kv.Key == "rank" && kv.Value != "" {
			return kv.Value
		}
	}
	return filepath.Base(r.Path())
}

func (t *trace) prepare(names map[*mmapio.Format]string) {
	t.nameBytes = []byte(t.name)
	maxID := 0
	for _, u := range t.r.Units() {
		maxID = max(maxID, int(u.ID))
	}
	t.unitNames = make([][]byte, maxID+1)
	t.unitStrs = make([]string, maxID+1)
	for id := range t.unitNames {
		t.unitStrs[id] = utf8String(t.r.UnitName(uint16(id)))
		t.unitNames[id] = []byte(t.unitStrs[id])
	}
	s := t.r.Schema()
	t.symbols, t.fileTime = s, s.TimeBase
	t.timeBases = make([]schema.TimeBase, maxID+1)
	for id := range t.timeBases {
		t.timeBases[id] = s.TimeBaseOf(uint16(id))
	}
	t.fmtNames = map[uint32][]byte{}
	t.progs = map[uint32]*ctext.Format{}
	for _, f := range t.r.Formats() {
		if _, ok := t.fmtNames[f.ID]; !ok {
			t.fmtNames[f.ID] = []byte(names[f])
			t.progs[f.ID] = rawread.Program(t.r.Format(f.ID))
		}
	}
}

// timeBase is the time base of unit u's cycles (zero: none).
func (t *trace) timeBase(u uint16) schema.TimeBase {
	if int(u) < len(t.timeBases) {
		return t.timeBases[u]
	}
	return t.fileTime
}

// program is format id's compiled text (nil: an unknown format).
func (t *trace) program(id uint32) *ctext.Format { return t.progs[id] }

// symbol is the text of interned string id.
func (t *trace) symbol(id uint32) []byte { return []byte(utf8String(t.symbols.SymbolText(id))) }

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

// openSQL opens the DuckDB database and registers the table functions and
// the views that name them.
func (d *DB) openSQL() error {
	conn, err := duckdb.NewConnector("", nil)
	if err != nil {
		return err
	}
	duckdb.RegisterReplacementScan(conn, d.replacement)
	d.sqldb = sql.OpenDB(conn)
	ctx := context.Background()
	c, err := d.sqldb.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if d.cfg.threads > 0 {
		if _, err := c.ExecContext(ctx, fmt.Sprintf("SET threads = %d", d.cfg.threads)); err != nil {
			return err
		}
	}
	kw, err := c.QueryContext(ctx, "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category <> 'unreserved'")
	if err != nil {
		return err
	}
	keywords := map[string]bool{}
	for kw.Next() {
		var k string
		if err := kw.Scan(&k); err != nil {
			kw.Close()
			return err
		}
		keywords[strings.ToLower(k)] = true
	}
	kw.Close()
	d.reserved = map[string]bool{}
	for _, t := range d.fmts {
		if keywords[strings.ToLower(t.Name)] {
			d.reserved[strings.ToLower(t.Name)] = true
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
			fmt.Fprintf(&views, "CREATE VIEW %s AS SELECT * FROM %s();\n", quoteIdent(t.Name), funcName(t.Name))
			continue
		}
		sel := "*"
		if len(functionColumns(t)) > len(t.Columns) {
			sel = "* EXCLUDE (" + anyColumn + ")"
		}
		fmt.Fprintf(&views, "CREATE MACRO %[1]s(cycles := NULL, unit := NULL, %[2]s := NULL) AS TABLE SELECT %[3]s FROM %[4]s(cycles := cycles, unit := unit, %[2]s := %[2]s);\n",
			quoteIdent(t.Name), pushdownParam, sel, funcName(t.Name))
		fmt.Fprintf(&views, "CREATE VIEW %[1]s AS SELECT * FROM %[1]s();\n", quoteIdent(t.Name))
	}
	if _, err := c.ExecContext(ctx, views.String()); err != nil {
		return fmt.Errorf("tracesql: %w", err)
	}
	return nil
}

// SQL returns the database: its connections see every table. A table
// whose name is a SQL keyword (fetch) must be quoted in queries run on it
// ("fetch"); Query does that.
func (d *DB) SQL() *sql.DB { return d.sqldb }

// Query runs a query (statements separated by ';': the rows are the last
// one's) after quoting the table names that are SQL keywords (QuoteTables).
func (d *DB) Query(query string, args ...any) (*sql.Rows, error) {
	return d.sqldb.Query(d.rewrite(QuoteTables(query, d.reserved)), args...)
}

// Readers returns the open traces, in the order Open was given them.
func (d *DB) Readers() []*mmapio.Reader {
	rs := make([]*mmapio.Reader, len(d.traces))
	for i, t := range d.traces {
		rs[i] = t.r
	}
	return rs
}

// Tables lists the database's tables: events, the per-format tables, then
// the others, each with its columns (a leading trace column when several
// traces are open, a time column when their cycles have a time).
func (d *DB) Tables() []Table {
	fixed := d.fixedTables()
	out := []Table{fixed[0]}
	for _, f := range d.fmts {
		out = append(out, f.Table)
	}
	return append(out, fixed[1:]...)
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
			if c.Name == "time" && !d.timed {
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

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
