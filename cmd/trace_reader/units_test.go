package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// unitsTrace writes cores 0-2, each with fetch and l2 units, for cycles
// 0-299, with the options given (a record-time selection).
func unitsTrace(t *testing.T, name string, opts ...chronon.Option) string {
	path := filepath.Join(t.TempDir(), name)
	tr, err := chronon.Create(path, append([]chronon.Option{chronon.WithAutoMetadata(false)}, opts...)...)
	require.NoError(t, err)
	var units []*chronon.Unit
	for c := range 3 {
		for _, s := range []string{"fetch", "l2"} {
			u, err := tr.NewUnit(fmt.Sprintf("core%d.%s", c, s))
			require.NoError(t, err)
			units = append(units, u)
		}
	}
	for cy := uint64(0); cy < 300; cy++ {
		for i, u := range units {
			followFmt.Emit(u, cy, cy*8+uint64(i), "x")
		}
	}
	require.NoError(t, tr.Close())
	return path
}

// Repeated --unit means any of them; a value with *, ? or [ is a
// path.Match pattern on the whole name, as CHRONON_TRACE's units=: filter
// of a full trace reproduces a trace recorded with that selection.
func TestUnitPatternsReproduceSelection(t *testing.T) {
	full := unitsTrace(t, "full.ctrace")
	sel := unitsTrace(t, "sel.ctrace", chronon.WithSelect("units=core1.*,core0.l2;cycles=100-0xc8"))
	code, want, stderr := runTool("dump", sel)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 3*101, strings.Count(want, "\n"), "the selected trace misses its case")
	code, got, stderr := runTool("filter", full, "--unit", "core1.*", "--unit", "core0.l2", "--cycles", "100-0xc8")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)

	// Every reading command: export and stats see the same units.
	for _, args := range [][]string{{"stats"}, {"stats", "--json"}} {
		code, a, _ := runTool(append(args, full, "--unit", "core1.*", "--unit", "core0.l2", "--cycles", "100-200")...)
		require.Equal(t, 0, code)
		require.Contains(t, a, "core1.fetch")
		require.Contains(t, a, "core0.l2")
		require.NotContains(t, a, "core0.fetch")
		require.NotContains(t, a, "core2.")
	}
	// A pattern is on the whole name (core? matches no name), a
	// plain value a substring; several files: the labelled name.
	code, _, stderr = runTool("dump", full, "--unit", "core9", "--unit", "core?")
	require.Equal(t, 1, code)
	require.Equal(t, "trace_reader: "+full+`: no unit name contains "core9" or matches "core?"; the units are core0.fetch, core0.l2, core1.fetch, core1.l2, ... (6 units; `+"`trace_reader info -v` lists them)\n", stderr)
	code, got, _ = runTool("dump", full, sel, "--unit", "sel/core[01].l2", "--cycles", "150")
	require.Equal(t, 0, code)
	require.Equal(t, 2*51, strings.Count(got, "\n"))
	require.Equal(t, 51, strings.Count(got, " sel/core0.l2: "))
	code, _, stderr = runTool("dump", full, "--unit", "[")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `--unit "["`)

	// diff and follow too.
	code, out, _ := runTool("diff", full, sel, "--unit", "core1.*", "--unit", "core0.l2", "--cycles", "100-200")
	require.Equal(t, 0, code, out)
	code, out, _ = runTool("diff", full, sel, "--unit", "core1.*", "--unit", "core0.l2")
	require.Equal(t, 1, code, out)
	code, out, _ = runTool("follow", full, "--unit", "core1.*", "--unit", "core0.l2", "--cycles", "100-200")
	require.Equal(t, 0, code)
	require.Equal(t, byUnit(want), byUnit(out))
}

// namedTrace writes units of the given names for cycles 0-99, unit i's
// events with argument i.
func namedTrace(t *testing.T, file string, names []string, opts ...chronon.Option) string {
	path := filepath.Join(t.TempDir(), file)
	tr, err := chronon.Create(path, append([]chronon.Option{chronon.WithAutoMetadata(false)}, opts...)...)
	require.NoError(t, err)
	var units []*chronon.Unit
	for _, n := range names {
		u, err := tr.NewUnit(n)
		require.NoError(t, err)
		units = append(units, u)
	}
	for cy := uint64(0); cy < 100; cy++ {
		for i, u := range units {
			followFmt.Emit(u, cy, uint64(i), "x")
		}
	}
	require.NoError(t, tr.Close())
	return path
}

var bracketNames = []string{"core1.fetch", "ROB[0].Top.incoming", "ROB[0].Top.outgoing", "ROB0", "ROB[1].Top.incoming"}

// unitsIn is the set of unit names of a dump.
func unitsIn(dump string) []string {
	var names []string
	for u := range byUnit(dump) {
		names = append(names, u)
	}
	slices.Sort(names)
	return names
}

// --unit reads escapes as CHRONON_TRACE's units= does (core\1.fetch is
// core1.fetch: the writer recorded it, --unit used to find nothing), so a
// filter of the full trace reproduces the recording, names with brackets
// included; =NAME is the exact name.
func TestUnitNamesAsWritten(t *testing.T) {
	t.Setenv(chronon.SelectEnv, "")
	full := namedTrace(t, "full.ctrace", bracketNames)
	for _, c := range []struct{ units, unit string }{
		{`core\1.fetch`, `core\1.fetch`},
		{"ROB[0].Top.incoming", "=ROB[0].Top.incoming"},
		{"=ROB[0].Top.incoming", "=ROB[0].Top.incoming"},
		{`ROB\[?].Top.*`, `ROB\[?].Top.*`},
	} {
		t.Setenv(chronon.SelectEnv, "units="+c.units)
		sel := namedTrace(t, "sel.ctrace", bracketNames)
		t.Setenv(chronon.SelectEnv, "")
		code, want, stderr := runTool("dump", sel)
		require.Equal(t, 0, code, stderr)
		require.NotEmpty(t, want, "units=%s records something", c.units)
		code, got, stderr := runTool("filter", full, "--unit", c.unit)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want, got, "units=%s against --unit %s", c.units, c.unit)
	}
	// As users write them: a name with brackets finds the units containing
	// it (and, as a pattern, ROB0); escaped, only those; =NAME one unit.
	for _, c := range []struct {
		unit string
		want []string
	}{
		{"ROB[0]", []string{"ROB0", "ROB[0].Top.incoming", "ROB[0].Top.outgoing"}},
		{`ROB\[0]`, []string{"ROB[0].Top.incoming", "ROB[0].Top.outgoing"}},
		{"ROB[0].Top.incoming", []string{"ROB[0].Top.incoming"}},
		{"=ROB[0].Top.incoming", []string{"ROB[0].Top.incoming"}},
		{`core\1`, []string{"core1.fetch"}},
	} {
		code, got, stderr := runTool("dump", full, "--unit", c.unit)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, c.want, unitsIn(got), "--unit %s", c.unit)
	}
	code, _, stderr := runTool("dump", full, "--unit", "=ROB[0]")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `no unit name is "ROB[0]"`)
	code, _, stderr = runTool("dump", full, "--unit", "ROB[0")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `--unit "ROB[0": syntax error in pattern (for a name with [ in it: =NAME, or \[)`)
	// A user writing a bracketed name as a pattern is told how to escape.
	code, _, stderr = runTool("dump", full, "--unit", "ROB[*].Top.incoming")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `in a pattern [...] is a set of characters: write \[ and \] for brackets in a name`)
	code, got, stderr := runTool("dump", full, "--unit", `ROB\[*\].Top.incoming`)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{"ROB[0].Top.incoming", "ROB[1].Top.incoming"}, unitsIn(got))
}
