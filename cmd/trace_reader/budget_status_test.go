package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A reading command stopped by the memory budget (--memory) fails as any
// other error of its command: status 1 (stats, export, sql), 2 for diff,
// whose 1 means different (TestDiffMemoryPendingTooLarge). The help's
// exit statuses said neither: they name the budget now.
func TestBudgetErrorsExitWithTheDocumentedStatus(t *testing.T) {
	dir := t.TempDir()
	open := openSpansTrace(t, dir, "open.ctrace", 50_000) // 400 KB of begin cycles: past a quarter of 1 MiB
	for _, args := range [][]string{
		{"stats", "--memory", "1MiB", open},
		{"export", "--memory", "1MiB", "-o", filepath.Join(dir, "o.pftrace"), open},
		{"export", "--format", "chrome-json", "--memory", "1MiB", "-o", filepath.Join(dir, "o.json"), open},
	} {
		code, _, errOut := runTool(args...)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "quarter of the memory budget (1 MiB)", "%v", args)
	}

	_, out, _ := runTool("help")
	exit := out[strings.Index(out, "Exit status:"):]
	require.Contains(t, strings.Join(strings.Fields(exit), " "),
		"1 the file is bad or unreadable, an I/O error, no unit matches --unit, or reading it needs more memory than --memory gives")
	require.Contains(t, strings.Join(strings.Fields(exit), " "), "diff: 0 equal, 1 different, 2 error (any of those of status 1)")
	_, out, _ = runTool("help", "sql")
	require.Contains(t, strings.Join(strings.Fields(out), " "), "1 a bad file, a SQL error, or more memory than --memory gives")
}
