package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// diff of two runs of several files each: the error says how to compare
// them (merge each run, then diff the merged files), and help diff says it
// too.
func TestDiffOfSeveralFilesSaysMergeFirst(t *testing.T) {
	args := []string{"diff"}
	for _, run := range []string{"runA", "runB"} {
		for r := range 4 {
			args = append(args, run+"/rank"+string(rune('0'+r))+".ctrace")
		}
	}
	code, out, errOut := runTool(args...)
	require.Equal(t, 2, code)
	require.Empty(t, out)
	first, _, _ := strings.Cut(errOut, "\n")
	require.Equal(t, "trace_reader: diff: needs two files, not 8; to compare runs of several files, "+
		"merge each run first (trace_reader merge -o A.ctrace run1/rank*.ctrace, the same for B), then diff A.ctrace B.ctrace", first)
	// One file: nothing to merge, no hint.
	_, _, errOut = runTool("diff", "a.ctrace")
	require.True(t, strings.HasPrefix(errOut, "trace_reader: diff: needs two files, not 1\n"), errOut)

	code, out, _ = runTool("help", "diff")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Runs of several files (one per rank): merge each run first\n"+
		"(trace_reader merge -o A.ctrace run1/rank*.ctrace), then diff the merged files.")
}

// The help's --cycles does not read as a START: syntax (which is
// rejected): START- or a bare START means from START on.
func TestHelpCyclesWording(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "dump"}, {"help", "diff"}} {
		_, out, _ := runTool(args...)
		require.NotContains(t, out, "START:", args)
		require.Contains(t, strings.Join(strings.Fields(out), " "), "START- or a bare START means from START on", args)
	}
	code, _, errOut := runTool("filter", "x.ctrace", "--cycles", "299998:")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "want START-END, START- or START")
}
