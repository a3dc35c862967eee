package rewrite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// categoryRunT writes a W1 run whose simulator registered "stall" and
// "exec" in the order given (the first takes bit 1, the second bit 2):
// fetch events are in exec, decode events in stall, so the same run
// registered in the other order has the same meaning and other bits.
func categoryRunT(t *testing.T, dir, name, first, second string, n, units int, seed uint64, opts ctracetest.Options) string {
	t.Helper()
	s := ctracetest.W1Schema(units)
	s.Categories = []schema.Category{{Name: first, Mask: 2}, {Name: second, Mask: 4}}
	bit := map[string]uint64{first: 2, second: 4}
	s.Formats[0].Category = bit["exec"]  // fetch
	s.Formats[1].Category = bit["stall"] // decode
	evs := ctracetest.W1Events(n, units, seed)
	for i := range evs {
		evs[i].Category = uint32(s.Formats[evs[i].FormatID-1].Category)
	}
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// catNames names the bits of mask by the categories cats.
func catNames(cats []schema.Category, mask uint64) []string {
	var names []string
	for _, c := range cats {
		if c.Mask&mask != 0 {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Issue 21 item 8: categories merge by name. Two runs that registered
// "stall" and "exec" in opposite order merge into one table (each name
// once, one bit each), and every event and format of the merge has the
// categories it had in its input: the stall rule of the Kanata export, the
// stats and the dump read the merge as they read the inputs.
func TestMergeCategoriesByName(t *testing.T) {
	dir := t.TempDir()
	opts := ctracetest.W1BenchOptions()
	pa := categoryRunT(t, dir, "a.ctrace", "stall", "exec", 5000, 8, 3, opts)
	pb := categoryRunT(t, dir, "b.ctrace", "exec", "stall", 5000, 8, 4, opts)
	pc := categoryRunT(t, dir, "c.ctrace", "stall", "exec", 5000, 8, 5, opts) // same order as a
	m, err := mmapio.OpenAll([]string{pa, pb, pc})
	require.NoError(t, err)
	defer m.Close()
	want := multiDump(t, m)
	r, res := mergeT(t, m, MergeOptions{Created: testTime})
	require.Equal(t, want, string(dumpText(t, r, mmapio.Query{}, 0)))
	b, err := os.ReadFile(r.Path())
	require.NoError(t, err)
	oracleCheck(t, b) // the original reader reads the remapped table and bits
	// One table: each name once, one bit each, the first file's bits.
	require.Equal(t, []schema.Category{{Name: "stall", Mask: 2}, {Name: "exec", Mask: 4}}, r.Categories())
	// Formats keep their categories' names (the Kanata stall rule reads
	// the format's mask against the table).
	for _, f := range r.Formats() {
		switch f.Format.Format {
		case "fetch pc=0x{:x} taken={}":
			require.Equal(t, []string{"exec"}, catNames(r.Categories(), f.Category))
		case "decode uop={} srcs={} dst={}":
			require.Equal(t, []string{"stall"}, catNames(r.Categories(), f.Category))
		}
	}
	// Every event keeps its categories' names, in timeline order.
	type ev struct {
		cycle uint64
		names []string
		fmt   string
	}
	var in, out []ev
	for file, e := range m.Events() {
		rd := m.Reader(file)
		in = append(in, ev{e.Cycle, catNames(rd.Categories(), uint64(e.Category)), rd.Format(e.FormatID).Format.Format})
	}
	require.NoError(t, m.Err())
	for e := range r.Events(mmapio.Query{}) {
		out = append(out, ev{e.Cycle, catNames(r.Categories(), uint64(e.Category)), r.Format(e.FormatID).Format.Format})
	}
	require.NoError(t, r.Err())
	require.Equal(t, len(in), len(out))
	stalls := 0
	for i := range in {
		require.Equal(t, in[i], out[i], "event %d", i)
		if slices.Contains(out[i].names, "stall") {
			stalls++
		}
	}
	require.NotZero(t, stalls)
	// The first file keeps its bits: its blocks are copied.
	require.Equal(t, m.Reader(0).NumBlocks(), res.Copied)
}

// More distinct category names than the 32 bits an event carries: the
// merge refuses, naming the files.
func TestMergeTooManyCategories(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for f := range 2 {
		s := ctracetest.W1Schema(2)
		for i := range 20 {
			s.Categories = append(s.Categories, schema.Category{Name: fmt.Sprintf("f%dc%d", f, i), Mask: 1 << (i + 1)})
		}
		b, err := ctracetest.Build(s, ctracetest.W1Events(100, 2, 1), ctracetest.W1BenchOptions())
		require.NoError(t, err)
		p := filepath.Join(dir, fmt.Sprintf("run%d.ctrace", f))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths = append(paths, p)
	}
	m, err := mmapio.OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	f, err := os.Create(filepath.Join(dir, "m.ctrace"))
	require.NoError(t, err)
	defer f.Close()
	_, err = Merge(f, m, MergeOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "32")
	require.Contains(t, err.Error(), paths[0])
	require.Contains(t, err.Error(), paths[1])
	t.Log(err)
}

// symbolRunT writes a run with symbol table syms and one event per symbol
// (a string argument before the Symbol one), units with the time base tb.
func symbolRunT(t *testing.T, dir, name string, syms []string, tb schema.TimeBase, opts ctracetest.Options) string {
	t.Helper()
	s := &schema.Schema{Version: 1, SimulationName: "syms", TimeBase: tb, Symbols: syms,
		Units: []schema.Unit{{ID: 1, Name: "core0"}, {ID: 2, Name: "core1", TimeBase: schema.TimeBase{Num: 1, Den: 3}}},
		Formats: []schema.Format{{ID: 1, Format: "op {} sym={} n={}",
			ArgTypes: []schema.ArgType{schema.ArgString, schema.ArgUInt32, schema.ArgUInt8},
			ArgRoles: []schema.ArgRole{schema.RolePlain, schema.RoleSymbol, schema.RolePlain}}},
	}
	var evs []ctracetest.Event
	for i := range syms {
		evs = append(evs, ctracetest.Event{
			Record: schema.Record{Cycle: uint64(i), FormatID: 1, SourceID: uint16(1 + i%2), ArgCount: 3},
			Args:   ctracetest.Args{}.Str(name).U32(uint32(i)).U8(uint8(i)),
		})
	}
	evs = append(evs, ctracetest.Event{ // a symbol cut short: printed as the reader prints it
		Record: schema.Record{Cycle: 50, FormatID: 1, SourceID: 1, ArgCount: 3},
		Args:   ctracetest.Args{}.Str("cut").U16(1),
	}, ctracetest.Event{ // an argument count short of the symbol
		Record: schema.Record{Cycle: 51, FormatID: 1, SourceID: 1, ArgCount: 1},
		Args:   ctracetest.Args{}.Str("one").U32(1).U8(1),
	})
	evs = append(evs, ctracetest.Event{ // an id the table does not hold
		Record: schema.Record{Cycle: 100, FormatID: 1, SourceID: 1, ArgCount: 3},
		Args:   ctracetest.Args{}.Str("over").U32(schema.SymbolOverflow).U8(0),
	})
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// A merge keeps the symbols (the first file's table first, a later file's
// ids renumbered where its strings have other ids) and every unit's time
// base, where the inputs' differ: the merge dumps as the inputs do.
func TestMergeSymbolsAndTimeBases(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []ctracetest.Options{ctracetest.W1BenchOptions(), {BlockSize: 4096}} {
		pa := symbolRunT(t, dir, "a.ctrace", []string{"x", "y"}, schema.TimeBase{Num: 1, Den: 1000}, opts)
		pb := symbolRunT(t, dir, "b.ctrace", []string{"y", "z", "x"}, schema.TimeBase{Num: 1, Den: 2000}, opts)
		m, err := mmapio.OpenAll([]string{pa, pb})
		require.NoError(t, err)
		want := multiDump(t, m)
		require.Contains(t, want, "sym=z")
		require.Contains(t, want, "op cut sym={}")
		r, _ := mergeT(t, m, MergeOptions{Created: testTime})
		require.Equal(t, want, string(dumpText(t, r, mmapio.Query{}, 0)))
		require.Equal(t, []string{"x", "y", "z"}, r.Schema().Symbols)
		b, err := os.ReadFile(r.Path())
		require.NoError(t, err)
		oracleCheck(t, b)
		for i, in := range m.Readers() {
			for _, u := range in.Units() {
				var out uint16
				for _, v := range r.Units() {
					if v.Name == m.Label(i)+"/"+u.Name {
						out = v.ID
					}
				}
				require.NotZero(t, out, u.Name)
				require.Equal(t, in.Schema().TimeBaseOf(u.ID), r.Schema().TimeBaseOf(out), "%s %s", m.Label(i), u.Name)
			}
		}
		m.Close()
	}
}
