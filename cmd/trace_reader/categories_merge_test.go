package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// issueRun is a run whose simulator registered "stall" and "exec" in the
// order given (the first takes bit 1, the second bit 2) and drew n
// "issue" stages, in exec, on lane 0 of unit core0.issue.
func issueRun(t *testing.T, dir, name, first, second string, n int) string {
	return issueRunIn(t, dir, name, first, second, "exec", n)
}

// issueRunIn is issueRun with the issue stages in category cat.
func issueRunIn(t *testing.T, dir, name, first, second, cat string, n int) string {
	t.Helper()
	bit := map[string]uint64{first: 2, second: 4}
	s := &schema.Schema{Version: 1, SimulationName: "cats",
		Units:      []schema.Unit{{ID: 1, Name: "core0.issue"}},
		Categories: []schema.Category{{Name: first, Mask: 2}, {Name: second, Mask: 4}},
		Formats: []schema.Format{{ID: 1, Format: "issue lane={} flow={} dur={}", Name: "issue",
			ArgTypes: []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64, schema.ArgUInt64},
			Kind:     schema.KindSpanComplete, ArgRoles: []schema.ArgRole{schema.RoleLane, schema.RoleFlow, schema.RoleDuration},
			Category: bit[cat]}},
	}
	var evs []ctracetest.Event
	for i := range n {
		evs = append(evs, ctracetest.Event{
			Record: schema.Record{Cycle: uint64(10 * i), FormatID: 1, SourceID: 1, ArgCount: 3, Category: uint32(bit[cat])},
			Args:   ctracetest.Args{}.U32(0).U64(uint64(i + 1)).U64(3),
		})
	}
	return writeTrace(t, dir, name, s, evs, ourLayout)
}

// stageLanes counts the Kanata log's stage lines ("S id lane name") by lane.
func stageLanes(t *testing.T, args ...string) map[string]int {
	t.Helper()
	out := filepath.Join(t.TempDir(), "k.kanata")
	code, stdout, stderr := runTool(append([]string{"export", "--format", "kanata", "-o", out}, args...)...)
	require.Equal(t, 0, code, "%s%s", stdout, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lanes := map[string]int{}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 4 && f[0] == "S" {
			lanes[f[2]+" "+f[3]]++
		}
	}
	return lanes
}

// Issue 21 item 8: the runs' categories merge by name. Two runs that
// registered stall and exec in opposite order each draw their issue
// stages on lane 0; read together (and merged) they still do.
func TestMergedCategoriesKanata(t *testing.T) {
	dir := t.TempDir()
	a := issueRun(t, dir, "a.ctrace", "stall", "exec", 100)
	b := issueRun(t, dir, "b.ctrace", "exec", "stall", 100)
	require.Equal(t, map[string]int{"0 issue": 100}, stageLanes(t, a))
	require.Equal(t, map[string]int{"0 issue": 100}, stageLanes(t, b))
	require.Equal(t, map[string]int{"0 issue": 200}, stageLanes(t, a, b))
	m := filepath.Join(dir, "m.ctrace")
	code, stdout, stderr := runTool("merge", "-o", m, a, b)
	require.Equal(t, 0, code, "%s%s", stdout, stderr)
	require.Equal(t, map[string]int{"0 issue": 200}, stageLanes(t, m))
	code, stdout, _ = runTool("info", "-v", m)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "\nCategories:\n  0x2 stall\n  0x4 exec\n\n", "one table, the first file's bits")
}

// The same span in another category (by name) in each run is two formats
// in the merge: each run's stages stay on their lane.
func TestMergedCategoriesKeepFormatsApart(t *testing.T) {
	dir := t.TempDir()
	a := issueRunIn(t, dir, "a.ctrace", "stall", "exec", "exec", 100)
	b := issueRunIn(t, dir, "b.ctrace", "exec", "stall", "stall", 100)
	require.Equal(t, map[string]int{"0 issue": 100}, stageLanes(t, a))
	require.Equal(t, map[string]int{"1 issue": 100}, stageLanes(t, b))
	require.Equal(t, map[string]int{"0 issue": 100, "1 issue": 100}, stageLanes(t, a, b))
}
