package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

var mergedOpenSpan = chronon.MustSpan("merged name open")

// openSpansTrace writes dir/name: n spans begun on lane 0 and never ended.
func openSpansTrace(t *testing.T, dir, name string, n int) string {
	t.Helper()
	path := filepath.Join(dir, name)
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	for i := range n {
		mergedOpenSpan.Begin(u, uint64(i), 0, 0)
	}
	require.NoError(t, tr.Close())
	return path
}

// stats and export of several files read them merged into a temporary
// trace, whose name the errors gave ("/tmp/.../.trace_reader-merge-....ctrace:
// at cycle 47104 ..."): the user never saw that file. The errors name the
// inputs instead, "a.ctrace, b.ctrace (merged): at cycle ...".
func TestSeveralFilesErrorsNameTheInputsNotTheMerge(t *testing.T) {
	dir := t.TempDir()
	a := openSpansTrace(t, dir, "open.ctrace", 20_000)
	b := openSpansTrace(t, dir, "open2.ctrace", 20_000)
	for _, args := range [][]string{
		{"stats", "--memory", "1MiB", a, b},
		{"stats", "--json", "--memory", "1MiB", a, b},
		{"export", "--memory", "1MiB", "-o", filepath.Join(dir, "o.pftrace"), a, b},
		{"export", "--format", "chrome-json", "--memory", "1MiB", "-o", filepath.Join(dir, "o.json"), a, b},
	} {
		code, _, errOut := runTool(args...)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.True(t, strings.HasPrefix(errOut, "trace_reader: "+a+", "+b+" (merged): at cycle "), "%v: %s", args, errOut)
		require.NotContains(t, errOut, ".trace_reader-merge-", "%v", args)
		require.Contains(t, errOut, "(--memory)", "%v", args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %s", args, errOut)
	}
}
