//go:build cgo

package tracesql

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

func lazyDB(t *testing.T, data []byte) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lazy.ctrace")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	d, err := Open([]string{path})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func queryInt(t *testing.T, d *DB, q string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, d.SQL().QueryRow(q).Scan(&n), q)
	return n
}

// The start builds nothing per format: no table is named (but the
// writers' spans) and no columns made until a query needs them; a query
// naming one format's table builds that one; the formats table and the
// list of names build none.
func TestStartBuildsNoFormatTable(t *testing.T) {
	const n = 2000
	d := lazyDB(t, manyFormats(t, n))
	require.Zero(t, d.fmtBuilds.Load(), "built at Open")
	require.True(t, d.fmts == nil, "named at Open")
	require.EqualValues(t, 1, queryInt(t, d, "SELECT 1"))
	require.EqualValues(t, n, queryInt(t, d, "SELECT count(*) FROM events"))
	require.EqualValues(t, n, queryInt(t, d, "SELECT count(unit) FROM events"))
	for _, q := range []string{ // rewritten: the pushdown
		"SELECT count(*) FROM events WHERE cycle < 100 AND unit = 'u3'",
		"SELECT count(*) FROM spans WHERE unit = 'u3'",
		"SELECT count(*) FROM counters WHERE cycle < 100",
		"SELECT count(*) FROM units JOIN blocks ON true",
	} {
		rs, err := d.Query(q)
		require.NoError(t, err, q)
		require.NoError(t, rs.Close())
		require.True(t, d.fmts == nil, "named by %s", q)
	}
	require.Zero(t, d.fmtBuilds.Load(), "built by queries naming no format")
	require.True(t, d.fmts == nil, "named by queries that need no format's name")

	require.EqualValues(t, 1234, queryInt(t, d, "SELECT x FROM op1234"))
	require.EqualValues(t, 1, d.fmtBuilds.Load(), "a query naming one table")
	require.EqualValues(t, 1234, queryInt(t, d, "SELECT cycle FROM OP1234 WHERE x = 1234"))
	require.EqualValues(t, 1, d.fmtBuilds.Load(), "the same table again")

	require.EqualValues(t, n, queryInt(t, d, "SELECT count(DISTINCT name) FROM formats"))
	require.EqualValues(t, 1, queryInt(t, d, "SELECT count(*) FROM events WHERE format = 'op77'"))
	names := d.TableNames()
	require.Len(t, names, n+len(fixedTables))
	require.Equal(t, []string{"events", "op0", "op1"}, names[:3])
	require.EqualValues(t, 1, d.fmtBuilds.Load(), "names only")

	tables := d.Tables()
	require.EqualValues(t, n, d.fmtBuilds.Load(), "Tables lists every table's columns")
	for i, tb := range tables {
		require.Equal(t, names[i], tb.Name)
		require.NotEmpty(t, tb.Columns, tb.Name)
	}
}

// Naming and building inside DuckDB's callbacks (the replacement scan,
// the bind), with names the parser is asked about (not plain ASCII, or a
// keyword: year), from
// several connections at once: no deadlock, no race, the same names as
// when the database opens with no query.
func TestLazyNamingInCallbacks(t *testing.T) {
	s := &schema.Schema{Version: 1, Units: []schema.Unit{{ID: 1, Name: "u"}}}
	texts := []string{"café year={}", "Étape n={}", "naïve x={}", "fetch pc={}", "op y={}"}
	var evs []ctracetest.Event
	for i, text := range texts {
		s.Formats = append(s.Formats, schema.Format{ID: uint32(i + 1), Format: text, ArgTypes: []schema.ArgType{schema.ArgUInt32}})
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: uint64(10 * i), FormatID: uint32(i + 1), SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U32(uint32(i))})
	}
	data, err := ctracetest.Build(s, evs, ctracetest.Options{})
	require.NoError(t, err)
	want := lazyDB(t, data).TableNames()

	d := lazyDB(t, data)
	queries := map[string]int64{
		`SELECT year FROM café`:   0,
		`SELECT cycle FROM Étape`: 10,
		`SELECT x FROM naïve`:     2,
		`SELECT pc FROM fetch_`:   3,
		`SELECT y FROM op`:        4,
	}
	var wg sync.WaitGroup
	for q, v := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got int64
			if err := d.SQL().QueryRow(q).Scan(&got); err != nil {
				t.Errorf("%s: %v", q, err)
			} else if got != v {
				t.Errorf("%s: %d, want %d", q, got, v)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, len(texts), d.fmtBuilds.Load())
	require.Equal(t, want, d.TableNames())
}

// The first query of a database reads counters, flows, or a format's
// name: what it needs is made then (counters need no table's name, flows
// and the format column do).
func TestFirstQueryNeedsNames(t *testing.T) {
	s := &schema.Schema{Version: 1, Units: []schema.Unit{{ID: 1, Name: "rob"}}, Formats: []schema.Format{
		{ID: 1, Format: "occupancy {}", Name: "rob.occupancy", Kind: schema.KindCounter, ArgTypes: []schema.ArgType{schema.ArgUInt32}, ArgRoles: []schema.ArgRole{schema.RoleValue}},
		{ID: 2, Format: "issue flow={}", ArgTypes: []schema.ArgType{schema.ArgUInt64}, ArgRoles: []schema.ArgRole{schema.RoleFlow}},
	}}
	var evs []ctracetest.Event
	for i := range 4 {
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: uint64(i), FormatID: 1, SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U32(uint32(10 * i))},
			ctracetest.Event{Record: schema.Record{Cycle: uint64(i), FormatID: 2, SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U64(uint64(i + 1))})
	}
	data, err := ctracetest.Build(s, evs, ctracetest.Options{})
	require.NoError(t, err)
	for _, q := range []struct {
		query string
		want  int64
		named bool
	}{
		{"SELECT sum(value)::BIGINT FROM counters WHERE name = 'rob.occupancy'", 60, false},
		{"SELECT sum(flow)::BIGINT FROM flows WHERE format = 'issue'", 10, true},
		{"SELECT count(*) FROM events WHERE format = 'occupancy'", 4, true},
		{"SELECT count(*) FROM formats WHERE name = 'issue'", 1, true},
	} {
		d := lazyDB(t, data)
		require.Equal(t, q.want, queryInt(t, d, q.query), q.query)
		require.Equal(t, q.named, d.fmts != nil, q.query)
		rs, err := d.Query(q.query) // the rewrite, then the query again
		require.NoError(t, err, q.query)
		require.True(t, rs.Next())
		var got int64
		require.NoError(t, rs.Scan(&got))
		require.NoError(t, rs.Close())
		require.Equal(t, q.want, got, q.query)
	}
}
