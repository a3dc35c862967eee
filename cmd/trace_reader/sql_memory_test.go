//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// --memory bounds the SQL scans and the Parquet export as it bounds every
// other reading command: a block that decodes to more than the budget is a
// one-line error naming the file and saying --memory, and the export leaves
// nothing behind; a budget that holds it answers.
func TestSQLAndParquetKeepTheMemoryBudget(t *testing.T) {
	b, err := ctracetest.OverlapBomb(4, 4<<20, 64)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "bomb.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	code, _, stderr := runTool("sql", "--memory", "2MiB", path, "-c", "SELECT sum(pc) FROM fetch_")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, path)
	require.Contains(t, stderr, "--memory")
	out := filepath.Join(dir, "pq")
	code, _, stderr = runTool("export", "--format", "parquet", "--memory", "2MiB", "-o", out, path)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "--memory")
	left, _ := filepath.Glob(out + "*")
	require.Empty(t, left, "a failed export leaves nothing behind")

	code, stdout, stderr := runTool("sql", "--csv", "--memory", "16MiB", path, "-c", "SELECT count(DISTINCT unit) FROM fetch_")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "count(DISTINCT unit)\n4\n", stdout)
	code, _, stderr = runTool("export", "--format", "parquet", "--memory", "16MiB", "-o", out, path)
	require.Equal(t, 0, code, stderr)
}
