//go:build cgo

package tracesql

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

func namesDB(t *testing.T) *DB {
	t.Helper()
	s := &schema.Schema{Version: 1, Units: []schema.Unit{{ID: 1, Name: "u"}},
		Formats: []schema.Format{{ID: 1, Format: "op {}", ArgTypes: []schema.ArgType{schema.ArgUInt32}}}}
	b, err := ctracetest.Build(s, []ctracetest.Event{{Record: schema.Record{Cycle: 1, FormatID: 1, SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U32(1)}}, ctracetest.Options{})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "n.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	d, err := Open([]string{path})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

// The names the parser is not asked about (plainIdent: ASCII identifiers
// that are no keyword) are names the parser takes, in table and column
// places: checked against it for hundreds of DuckDB's own function names
// and a few made up; keywords are never plain.
func TestPlainIdentsParse(t *testing.T) {
	d := namesDB(t)
	rn := d.names
	fns, err := d.strings(t.Context(), "SELECT DISTINCT lower(function_name) FROM duckdb_functions() ORDER BY 1")
	require.NoError(t, err)
	names := append([]string{"x", "_a", "abc123", "op99999", "a_b_c", "cycle_x", "events_"}, fns...)
	n := 0
	for _, name := range names {
		if !rn.plainIdent(name) || rn.tables[name] {
			continue
		}
		n++
		require.True(t, d.parses(fmt.Sprintf(tableQueries, name)), "table %q", name)
		require.True(t, d.parses(fmt.Sprintf(columnQueries, name)), "column %q", name)
	}
	require.Greater(t, n, 200)
	for k := range rn.tableKeywords {
		require.False(t, rn.plainIdent(k), k)
	}
	require.False(t, rn.plainIdent("1a"))
	require.False(t, rn.plainIdent("Op"))
	require.False(t, rn.plainIdent("café"))
}

// precheck's batched answers are the parser's one at a time: every DuckDB
// keyword (some parse as a table's or a column's name, some do not) and
// names that are not plain, in batches that parse and batches that do not.
func TestPrecheckAnswersAsCheck(t *testing.T) {
	d := namesDB(t)
	var names []string
	for k := range d.names.tableKeywords {
		names = append(names, k)
	}
	names = append(names, "café", "naïve_1", "1abc")
	for _, query := range []string{tableQueries, columnQueries} {
		rn := newReservedNames(nil, nil, d.parses)
		rn.tableKeywords = d.names.tableKeywords
		rn.precheck(query, names)
		bad := 0
		for _, name := range names {
			q := fmt.Sprintf(query, name)
			got, ok := rn.cache[q]
			require.True(t, ok, "%q not checked", name)
			want := d.parses(q)
			require.Equal(t, want, got, "%q", name)
			if !want {
				bad++
			}
		}
		require.Positive(t, bad, "no name fails: the batches were never split")
	}
}

// BenchmarkOpenManyFormats: the start of a database over a trace of n
// formats of distinct names (issue 21's target: 100k formats in 0.3 s).
// The 100k case takes a few seconds to build its trace.
func BenchmarkOpenManyFormats(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("formats=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "f.ctrace")
			require.NoError(b, os.WriteFile(path, manyFormats(b, n), 0o644))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				d, err := Open([]string{path})
				if err != nil {
					b.Fatal(err)
				}
				d.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "formats/s")
		})
	}
}

// manyFormats is a trace of n formats op0 x={} ... of one u32 argument
// each, one event each, on 16 units.
func manyFormats(tb testing.TB, n int) []byte {
	tb.Helper()
	s := &schema.Schema{Version: 1}
	for u := range 16 {
		s.Units = append(s.Units, schema.Unit{ID: uint16(u + 1), Name: fmt.Sprintf("u%d", u)})
	}
	var evs []ctracetest.Event
	for i := range n {
		s.Formats = append(s.Formats, schema.Format{ID: uint32(i + 1), Format: fmt.Sprintf("op%d x={}", i), ArgTypes: []schema.ArgType{schema.ArgUInt32}})
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: uint64(i), FormatID: uint32(i + 1), SourceID: uint16(i%16 + 1), ArgCount: 1}, Args: ctracetest.Args{}.U32(uint32(i))})
	}
	data, err := ctracetest.Build(s, evs, ctracetest.Options{Compress: true})
	require.NoError(tb, err)
	return data
}
