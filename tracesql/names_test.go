//go:build cgo

package tracesql_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// adversarial is a schema whose formats are named after SQL keywords,
// DuckDB's table functions, tables and views, and our own tables; with
// arguments named after keywords and the leading columns; unicode and
// non-UTF-8 names; a span whose three formats share its name, and an
// instant and two formats that share a first word.
type advFormat struct {
	text  string
	types []schema.ArgType
	table string // the table it must get
	n     int    // events written
}

var (
	u64 = schema.ArgUInt64
	adv = []advFormat{
		{"select x={}", []schema.ArgType{u64}, "select_", 3},
		{"order at={} select={} order={}", []schema.ArgType{u64, schema.ArgUInt32, schema.ArgBool}, "order_", 4},
		{"fetch pc={}", []schema.ArgType{u64}, "fetch_", 5},
		{"float f={}", []schema.ArgType{schema.ArgDouble}, "float_", 2},
		{"if c={}", []schema.ArgType{schema.ArgUInt8}, "if_", 2},
		{"range r={}", []schema.ArgType{u64}, "range_", 6},
		{"read_parquet p={}", []schema.ArgType{u64}, "read_parquet_", 1},
		{"read_csv_auto q={}", []schema.ArgType{u64}, "read_csv_auto_", 1},
		{"generate_series g={}", []schema.ArgType{u64}, "generate_series_", 2},
		{"glob g={}", []schema.ArgType{u64}, "glob_", 1},
		{"events e={}", []schema.ArgType{u64}, "events_", 7},
		{"spans s={}", []schema.ArgType{u64}, "spans_", 1},
		{"ctrace_events x={}", []schema.ArgType{u64}, "ctrace_events", 2},
		{"ctrace_spans y={}", []schema.ArgType{u64}, "ctrace_spans", 3},
		{"duckdb_tables t={}", []schema.ArgType{u64}, "duckdb_tables_", 1},
		{"sqlite_master t={}", []schema.ArgType{u64}, "sqlite_master_", 1},
		{"débit crédit={}", []schema.ArgType{u64}, "débit", 2},
		{"\xff\xfe bad={}", []schema.ArgType{u64}, "format", 1},
		{"exec x={}", []schema.ArgType{u64}, "exec_19", 2}, // the span exec took exec
		{"issue a={}", []schema.ArgType{u64}, "issue", 3},
		{"issue b={} c={}", []schema.ArgType{schema.ArgUInt32, schema.ArgBool}, "issue_21", 4},
		{"cycle unit={} cycle={}", []schema.ArgType{u64, u64}, "cycle", 2},
	}
	advUnits = []string{"u\xff", "u\xfe", "core.ok", "ünit"}
)

const (
	advSpanBegin = 100 + iota
	advSpanEnd
	advSpanComplete
)

// adversarialTrace writes the adversarial schema's trace, its metadata
// rank (none when ""), and returns its path.
func adversarialTrace(t *testing.T, dir, name, rank string) string {
	s := &schema.Schema{Version: 1, SimulationName: "adversarial"}
	for i, u := range advUnits {
		s.Units = append(s.Units, schema.Unit{ID: uint16(i + 1), Name: u, TypeName: "T"})
	}
	if rank != "" {
		s.Metadata = []schema.KeyValue{{Key: "rank", Value: rank}}
	}
	// The span's formats come first: it gets exec, the instant exec_19.
	lf := []schema.ArgRole{schema.RoleLane, schema.RoleFlow}
	s.Formats = append(s.Formats,
		schema.Format{ID: advSpanBegin, Format: "exec begin lane={} flow={}", ArgTypes: []schema.ArgType{schema.ArgUInt32, u64}, Kind: schema.KindSpanBegin, ArgRoles: lf, Name: "exec"},
		schema.Format{ID: advSpanEnd, Format: "exec end lane={} flow={}", ArgTypes: []schema.ArgType{schema.ArgUInt32, u64}, Kind: schema.KindSpanEnd, ArgRoles: lf, Name: "exec"},
		schema.Format{ID: advSpanComplete, Format: "exec lane={} flow={} dur={}", ArgTypes: []schema.ArgType{schema.ArgUInt32, u64, u64}, Kind: schema.KindSpanComplete,
			ArgRoles: []schema.ArgRole{schema.RoleLane, schema.RoleFlow, schema.RoleDuration}, Name: "exec"})
	var evs []ctracetest.Event
	cycle := uint64(10)
	for i, f := range adv {
		id := uint32(i + 1)
		names := schema.ArgNames(f.text)
		if f.table == "débit" {
			names = []string{"crédit"} // a writer may record names schema.ArgNames would not derive
		}
		s.Formats = append(s.Formats, schema.Format{ID: id, Format: f.text, ArgTypes: f.types, ArgNames: names})
		for k := range f.n {
			var a ctracetest.Args
			for j, ty := range f.types {
				v := uint64(1000*i + 10*k + j)
				switch ty {
				case schema.ArgUInt32:
					a = a.U32(uint32(v))
				case schema.ArgUInt8:
					a = a.U8(uint8(v))
				case schema.ArgBool:
					a = a.Bool(k%2 == 0)
				case schema.ArgDouble:
					a = a.F64(float64(v) + 0.5)
				default:
					a = a.U64(v)
				}
			}
			cycle++
			evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: cycle, FormatID: id, SourceID: uint16(1 + k%len(advUnits)), ArgCount: uint8(len(f.types))}, Args: a})
		}
	}
	// 8 exec spans: 5 complete, 3 begin/end pairs.
	for k := range 5 {
		cycle++
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: cycle, FormatID: advSpanComplete, SourceID: 3, ArgCount: 3},
			Args: ctracetest.Args{}.U32(uint32(k)).U64(0).U64(uint64(k + 1))})
	}
	for range 3 {
		cycle++
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: cycle, FormatID: advSpanBegin, SourceID: 4, ArgCount: 2}, Args: ctracetest.Args{}.U32(0).U64(0)})
		cycle += 10
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: cycle, FormatID: advSpanEnd, SourceID: 4, ArgCount: 2}, Args: ctracetest.Args{}.U32(0).U64(0)})
	}
	b, err := ctracetest.Build(s, evs, ctracetest.Options{PerUnit: true, Compress: true})
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// TestAdversarialNames: formats named after keywords, DuckDB's functions
// and tables and ours, arguments named after keywords, unicode and
// non-UTF-8 names: every table gets a name a query writes bare, .tables
// lists it once, the natural queries parse and answer right, and DuckDB's
// own functions still work.
func TestAdversarialNames(t *testing.T) {
	dir := t.TempDir()
	db := open(t, []string{adversarialTrace(t, dir, "adv.ctrace", "")})
	var names []string
	byName := map[string]tracesql.Table{}
	for _, tb := range db.Tables() {
		names = append(names, tb.Name)
		byName[tb.Name] = tb
	}
	require.Len(t, byName, len(names), "every name once: %q", names)
	for _, f := range adv {
		tb, ok := byName[f.table]
		require.True(t, ok, "format %q: no table %s in %q", f.text, f.table, names)
		require.Equal(t, f.text, tb.Format)
	}
	require.Equal(t, "exec", byName["exec"].Span)
	require.Equal(t, []string{"cycle", "unit", "unit_id", "seq", "at_", "select_", "order_"}, columnNames(byName["order_"]))
	require.Equal(t, []string{"cycle", "unit", "unit_id", "seq", "unit_2", "cycle_2"}, columnNames(byName["cycle"]))
	require.Equal(t, []string{"cycle", "unit", "unit_id", "seq", "crédit"}, columnNames(byName["débit"]))

	for _, tb := range db.Tables() {
		if tb.Format == "" {
			continue
		}
		want := fmt.Sprint(advCount(tb.Format))
		// Bare, aliased, in a join list, as a macro, described: all parse.
		require.Equal(t, want, one(t, db, "SELECT count(*) FROM "+tb.Name), tb.Name)
		require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*) FROM events e, %s f WHERE e.cycle = f.cycle", tb.Name)), tb.Name)
		require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*) FROM events JOIN %s(cycles := '0-') f USING (cycle)", tb.Name)), tb.Name)
		require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*) FROM %s(unit := '') AS x", tb.Name)), tb.Name)
		require.Len(t, rows(t, db, "DESCRIBE "+tb.Name), len(tb.Columns), tb.Name)
		for _, c := range tb.Columns {
			require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*) FROM (SELECT %[1]s, t.%[1]s FROM %[2]s t ORDER BY %[1]s)", c.Name, tb.Name)), "%s.%s", tb.Name, c.Name)
		}
		// Every table's events are its format's: events.format names it.
		require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*) FROM events WHERE format = '%s'", tb.Name)), tb.Name)
	}
	require.Equal(t, []string{"1000|true", "1010|false", "1020|true", "1030|false"}, rows(t, db, "SELECT at_, order_ FROM order_ ORDER BY at_"))
	require.Equal(t, []string{"16000", "16010"}, rows(t, db, "SELECT crédit FROM débit ORDER BY crédit"))
	require.Equal(t, "4|2|80060", one(t, db, "SELECT count(*), count(*) FILTER (WHERE NOT c), sum(b) FROM issue_21"))

	// A span is one table named after it: its spans, begin/end pairs and
	// complete ones.
	require.Equal(t, "8|45", one(t, db, `SELECT count(*), sum(dur) FROM exec`))
	require.Equal(t, one(t, db, `SELECT count(*), sum(dur), min(start), max("end") FROM spans WHERE name = 'exec'`),
		one(t, db, `SELECT count(*), sum(dur), min(start), max("end") FROM exec`))
	require.Equal(t, "3", one(t, db, `SELECT count(*) FROM exec(unit := 'ünit')`))
	require.Equal(t, []string{"exec", "exec", "exec"}, rows(t, db, "SELECT name FROM formats WHERE kind LIKE 'span%' ORDER BY format_id"))
	require.Equal(t, "11", one(t, db, "SELECT count(*) FROM events WHERE format = 'exec'"))

	// DuckDB's own table functions are not hidden by a table's macro.
	require.Equal(t, "3", one(t, db, "SELECT count(*) FROM range(3)"))
	require.Equal(t, "4", one(t, db, "SELECT count(*) FROM generate_series(1, 4)"))
	pq, csv := filepath.Join(dir, "x.parquet"), filepath.Join(dir, "x.csv")
	one(t, db, fmt.Sprintf("COPY (SELECT 42 AS x) TO '%s'", pq))
	require.NoError(t, os.WriteFile(csv, []byte("y\n7\n"), 0o644))
	require.Equal(t, "42|7", one(t, db, fmt.Sprintf("SELECT x, y FROM read_parquet('%s'), read_csv_auto('%s')", pq, csv)))
	require.Equal(t, "1", one(t, db, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'events'"))
	require.Equal(t, "0", one(t, db, "SELECT count(*) FROM duckdb_tables"))

	// Unit names that are not UTF-8 stay distinct, their bytes escaped.
	require.Equal(t, []string{`1|u\xff`, `2|u\xfe`, "3|core.ok", "4|ünit"}, rows(t, db, "SELECT unit_id, unit FROM units ORDER BY unit_id"))
	require.Equal(t, rows(t, db, "SELECT unit_id, unit FROM units ORDER BY unit_id"), rows(t, db, "SELECT DISTINCT unit_id, unit FROM events ORDER BY unit_id"))
	require.Equal(t, "4", one(t, db, "SELECT count(DISTINCT unit) FROM events"))
}

func columnNames(t tracesql.Table) []string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

func advCount(text string) int {
	i := slices.IndexFunc(adv, func(f advFormat) bool { return f.text == text })
	return adv[i].n
}

// TestTraceLabels: two files of one rank, and one file given twice, are
// distinct traces (rank0, rank0#2; adv, adv#2), as dump labels them: a
// GROUP BY trace keeps them apart and a join on trace does not multiply.
func TestTraceLabels(t *testing.T) {
	dir := t.TempDir()
	a := adversarialTrace(t, dir, "a.ctrace", "0")
	b := adversarialTrace(t, dir, "b.ctrace", "0")
	c := adversarialTrace(t, dir, "adv.ctrace", "")
	events := one(t, open(t, []string{a}), "SELECT count(*) FROM events")
	for _, tc := range []struct {
		paths  []string
		labels []string
	}{
		{[]string{a, b}, []string{"rank0", "rank0#2"}},
		{[]string{a, a}, []string{"rank0", "rank0#2"}},
		{[]string{c, c, a}, []string{"adv", "adv#2", "rank0"}},
	} {
		db := open(t, tc.paths)
		var want []string
		for _, l := range tc.labels {
			want = append(want, l+"|"+events)
		}
		require.Equal(t, want, rows(t, db, "SELECT trace, count(*) FROM events GROUP BY trace ORDER BY trace"))
		require.Equal(t, one(t, db, "SELECT count(*) FROM units"), one(t, db, "SELECT count(*) FROM units x JOIN units y USING (trace, unit_id)"))
		require.Equal(t, fmt.Sprint(len(tc.labels)*len(advUnits)), one(t, db, "SELECT count(DISTINCT (trace, unit)) FROM events"))
		require.Equal(t, fmt.Sprint(len(tc.labels)*8), one(t, db, "SELECT count(*) FROM exec"))
	}
}

// A query that names a table by the keyword it was renamed from says
// what the table is called.
func TestKeywordHint(t *testing.T) {
	db := open(t, []string{adversarialTrace(t, t.TempDir(), "adv.ctrace", "")})
	_, err := db.Query("SELECT count(*) FROM fetch")
	require.ErrorContains(t, err, "fetch is a keyword: the table is fetch_ (format ")
	require.True(t, strings.HasPrefix(err.Error(), "Parser Error: syntax error"), err.Error())
	// New-user finding: spans' end needs quotes, and nothing said so.
	_, err = db.Query("SELECT end FROM spans")
	require.ErrorContains(t, err, `end is a keyword: write the column spans.end as "end"`)
	_, err = db.Query(`SELECT "end", file_offset FROM spans, blocks LIMIT 1`)
	require.NoError(t, err)
}

// New-user finding: a span and a format both named fetch make two tables,
// and the hint for FROM fetch named the span's only, where the user meant
// the format's: it names both, and what each holds.
func TestKeywordHintNamesEveryTable(t *testing.T) {
	db := open(t, []string{spanAndFormatTrace(t)})
	_, err := db.Query("SELECT count(*) FROM fetch")
	require.ErrorContains(t, err, `fetch is a keyword: the tables are fetch_ (spans fetch), fetch_4 (format "fetch pc={}")`)
}

// New-user finding (Akita's where= argument, column where_): a column
// renamed for a keyword, asked for by its old name quoted or bare, says
// what the column is called, as a renamed table does.
func TestKeywordHintNamesRenamedColumn(t *testing.T) {
	db := open(t, []string{adversarialTrace(t, t.TempDir(), "adv.ctrace", "")})
	// Bare, a keyword is a syntax error: the table and the column are named.
	_, err := db.Query(`SELECT select FROM order_`)
	require.ErrorContains(t, err, `select is a keyword: the table is select_ (format "select x={}"); the column is order_.select_`)
	_, err = db.Query(`SELECT "select" FROM order_`)
	require.ErrorContains(t, err, `Referenced column "select" not found in FROM clause! (select is a keyword: the column is order_.select_)`)
	_, err = db.Query(`SELECT count("at") FROM order_`)
	require.ErrorContains(t, err, `at is a keyword: the column is order_.at_`)
	_, err = db.Query(`SELECT order_.select FROM order_`)
	require.ErrorContains(t, err, `select is a keyword: the column is order_.select_`)
	_, err = db.Query(`SELECT o."at" FROM order_ o`)
	require.ErrorContains(t, err, `at is a keyword: the column is order_.at_`)
	// A column that is simply not there gets no keyword hint.
	_, err = db.Query(`SELECT "nosuch" FROM order_`)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "is a keyword")
	_, err = db.Query(`SELECT select_, at_, order_ FROM order_ LIMIT 1`)
	require.NoError(t, err)
}
