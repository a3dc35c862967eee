package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// merge's output is a valid v1.1 file (the conformance oracle accepts it
// and prints the same events) and reads back as the multi-file dump.
func TestMergeCommand(t *testing.T) {
	paths, labels := timelineInputs(t)
	paths = append(paths, ref("mixed-small.ctrace")) // the original writer: unit 0, an unknown format id
	labels = append(labels, "mixed-small")
	out := filepath.Join(t.TempDir(), "merged.ctrace")
	code, stdout, errOut := runTool(append([]string{"merge", "-o", out, "-v"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, "wrote "+out+": 5 files, ")
	for i, l := range labels {
		require.Contains(t, errOut, l+": "+paths[i]+"\n")
	}

	_, timeline, _ := runTool(append([]string{"dump"}, paths...)...)
	code, back, errOut := runTool("dump", out)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, timeline, back)

	if _, err := ctracetest.Oracle(); err != nil {
		t.Skipf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
	}
	_, err := ctracetest.RunOracle("check", out)
	require.NoError(t, err)
	// The oracle prints in file order, trace_reader in cycle order.
	od, err := ctracetest.RunOracle("dump", out)
	require.NoError(t, err)
	require.Equal(t, sortedLines(back), sortedLines(string(od)))
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(l)
	return l
}

// merge refuses what it cannot do before writing anything.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	a := writeTrace(t, dir, "a.ctrace", ctracetest.W1Schema(2), ctracetest.W1Events(100, 2, 1), ourLayout)
	code, _, errOut := runTool("merge", "-o", a, ref("raw.ctrace"), a)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "is the input file")
	code, _, errOut = runTool("merge", "-o", "/dev/stdout", a)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "merge writes a regular file")
	out := filepath.Join(dir, "out.ctrace")
	bad := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, []byte("garbage"), 0o644))
	code, _, errOut = runTool("merge", "-o", out, a, bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, bad)
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err))
}
