package rewrite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// farSymbolRun writes a run with symbol table syms whose events hold the
// symbol ids ids (some beyond the table: printed "[symbol N]").
func farSymbolRun(t *testing.T, dir, name string, syms []string, ids []uint32, opts ctracetest.Options) string {
	t.Helper()
	s := &schema.Schema{Version: 1, SimulationName: "syms", Symbols: syms,
		Units: []schema.Unit{{ID: 1, Name: "core0"}},
		Formats: []schema.Format{{ID: 1, Format: "op {} sym={}",
			ArgTypes: []schema.ArgType{schema.ArgString, schema.ArgUInt32},
			ArgRoles: []schema.ArgRole{schema.RolePlain, schema.RoleSymbol}}},
	}
	var evs []ctracetest.Event
	for i, id := range ids {
		evs = append(evs, ctracetest.Event{
			Record: schema.Record{Cycle: uint64(i), FormatID: 1, SourceID: 1, ArgCount: 2},
			Args:   ctracetest.Args{}.Str(name).U32(id),
		})
	}
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// A symbol id beyond its own file's table prints "[symbol N]"; in the
// merge it must not name a string another file added (the first file's id
// 3 would be b's "r", b's id 5 its "t"): it gets an entry printing as the
// input did, in a schema written after the blocks. Ids in the tables and
// SymbolOverflow print as before, and the output passes the oracle.
func TestMergeSymbolBeyondItsTable(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []ctracetest.Options{ctracetest.W1BenchOptions(), {BlockSize: 4096}} {
		pa := farSymbolRun(t, dir, "a.ctrace", []string{"x", "y"}, []uint32{0, 1, 3, 9, schema.SymbolOverflow}, opts)
		pb := farSymbolRun(t, dir, "b.ctrace", []string{"q", "r", "s", "t"}, []uint32{0, 1, 3, 5, 3, 9}, opts)
		m, err := mmapio.OpenAll([]string{pa, pb})
		require.NoError(t, err)
		want := multiDump(t, m)
		require.Contains(t, want, "op a.ctrace sym=[symbol 3]")
		require.Contains(t, want, "op b.ctrace sym=[symbol 5]")
		require.Contains(t, want, "op b.ctrace sym=[symbol 9]")
		require.Contains(t, want, "sym="+schema.SymbolOverflowText)
		r, _ := mergeT(t, m, MergeOptions{Created: testTime})
		require.Equal(t, want, string(dumpText(t, r, mmapio.Query{}, 0)))
		require.Equal(t, []string{"x", "y", "q", "r", "s", "t"}, r.Schema().Symbols[:6])
		require.ElementsMatch(t, []string{"[symbol 3]", "[symbol 5]", "[symbol 9]"}, r.Schema().Symbols[6:])
		b, err := os.ReadFile(r.Path())
		require.NoError(t, err)
		oracleCheck(t, b)
		m.Close()

		// Inputs whose tables are the same keep every id: nothing is added
		// and the schema stays before the blocks.
		pc := farSymbolRun(t, dir, "c.ctrace", []string{"x", "y"}, []uint32{0, 1, 7}, opts)
		m, err = mmapio.OpenAll([]string{pa, pc})
		require.NoError(t, err)
		want = multiDump(t, m)
		r, _ = mergeT(t, m, MergeOptions{Created: testTime})
		require.Equal(t, want, string(dumpText(t, r, mmapio.Query{}, 0)))
		require.Equal(t, []string{"x", "y"}, r.Schema().Symbols)
		b, err = os.ReadFile(r.Path())
		require.NoError(t, err)
		h, err := schema.ParseHeader(b, int64(len(b)))
		require.NoError(t, err)
		require.Equal(t, uint64(schema.HeaderSize), h.SchemaOffset)
		m.Close()
	}
}
