package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// rankFiles writes n rank files r<first>.ctrace ... (cores 0-2, fetch and
// l2 each) whose metadata says rank <first+i>: their label in a timeline.
func rankFiles(t *testing.T, first, n int) []string {
	dir := t.TempDir()
	var paths []string
	for i := range n {
		rank := first + i
		p := unitsTrace(t, "r.ctrace", chronon.WithMetadata("rank", strconv.Itoa(rank)))
		dst := filepath.Join(dir, "r"+strconv.Itoa(rank)+".ctrace")
		require.NoError(t, os.Rename(p, dst))
		paths = append(paths, dst)
	}
	return paths
}

// A --unit no unit matches names every file read and shows some of the
// names that exist, so that labelled names (rank3/core0.l2) are visible;
// a pattern that matches the names once their label is cut off is offered
// as the --unit that would work.
func TestNoUnitErrorShowsNames(t *testing.T) {
	ranks := rankFiles(t, 0, 4)

	// One merged file: its names carry the labels.
	all := filepath.Join(t.TempDir(), "all.ctrace")
	code, _, stderr := runTool(append([]string{"merge", "-o", all}, ranks...)...)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runTool("filter", all, "--unit", "core1.*")
	require.Equal(t, 1, code)
	require.Equal(t, "trace_reader: "+all+`: no unit name matches "core1.*"; the units are `+
		"rank0/core0.fetch, rank0/core0.l2, rank0/core1.fetch, rank0/core1.l2, ... (24 units; `trace_reader info -v` lists them); "+
		`--unit "*/core1.*" would match 8 units`+"\n", stderr)

	// Several files: every one is named, and their labels.
	for _, cmd := range [][]string{{"filter"}, {"stats"}, {"export", "-o", filepath.Join(t.TempDir(), "x.json"), "--format", "chrome-json"}} {
		code, _, stderr = runTool(append(append(cmd, ranks...), "--unit", "core1.*")...)
		require.Equal(t, 1, code, cmd)
		require.Equal(t, "trace_reader: "+strings.Join(ranks, ", ")+`: no unit name in any of the 4 files matches "core1.*"; `+
			"units are named LABEL/UNIT, the labels: rank0 ("+ranks[0]+"), rank1 ("+ranks[1]+"), rank2 ("+ranks[2]+"), rank3 ("+ranks[3]+"); "+
			"the units are rank0/core0.fetch, rank0/core0.l2, rank0/core1.fetch, rank0/core1.l2, ... (24 units; `trace_reader info -v` lists them); "+
			`--unit "*/core1.*" would match 8 units`+"\n", stderr, cmd)
	}

	// A label is the metadata's rank, not the file's name: r3/ is offered
	// as rank3/.
	r34 := rankFiles(t, 3, 2)
	code, _, stderr = runTool("filter", r34[0], r34[1], "--unit", "r3/core0.l2")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `: no unit name in any of the 2 files contains "r3/core0.l2"; units are named LABEL/UNIT, the labels: rank3 (`+r34[0]+"), rank4 ("+r34[1]+"); ")
	require.True(t, strings.HasSuffix(stderr, `; --unit "rank3/core0.l2" would match 1 unit`+"\n"), stderr)

	// More than 4 files: the first ones, then how many.
	six := append(append([]string{}, ranks...), r34...)
	code, _, stderr = runTool(append(append([]string{"filter"}, six...), "--unit", "nothing")...)
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stderr, "trace_reader: "+strings.Join(six[:4], ", ")+", ... (6 files): no unit name in any of the 6 files contains \"nothing\"; "), stderr)
	require.Contains(t, stderr, "rank3 ("+six[3]+"), ...; ")

	// diff: both files, the names of both.
	code, _, stderr = runTool("diff", ranks[0], ranks[1], "--unit", "core9")
	require.Equal(t, 2, code)
	require.Equal(t, "trace_reader: "+ranks[0]+", "+ranks[1]+`: no unit name in any of the 2 files contains "core9"; the units are `+
		"core0.fetch, core0.l2, core1.fetch, core1.l2, ... (6 units; `trace_reader info -v` lists them)\n", stderr)

	// Few units: all of them, no count.
	few := filepath.Join(t.TempDir(), "few.ctrace")
	tr, err := chronon.Create(few, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	for _, n := range []string{"a.x", "b.y"} {
		u, err := tr.NewUnit(n)
		require.NoError(t, err)
		followFmt.Emit(u, 1, 1, "x")
	}
	require.NoError(t, tr.Close())
	code, _, stderr = runTool("dump", few, "--unit", "c")
	require.Equal(t, 1, code)
	require.Equal(t, "trace_reader: "+few+`: no unit name contains "c"; the units are a.x, b.y`+"\n", stderr)
}
