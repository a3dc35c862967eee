//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// One damaged Parquet file (a copy cut short) of a dataset of many runs:
// sql reads the other files, and warns naming the file and its table (the
// whole dataset was unreadable, and the error printed DuckDB's quote of our
// own SQL with a literal \n); --strict makes it an error naming the file.
func TestDatasetWithADamagedFile(t *testing.T) {
	dir := t.TempDir()
	paths := rankTraces(t, dir, 3)
	ds := filepath.Join(dir, "ds")
	code, _, errOut := runTool("export", "--format", "parquet", "--dataset", ds, paths[0], paths[1], paths[2])
	require.Equal(t, 0, code, errOut)
	damaged := filepath.Join(ds, "events", "trace=rank1", "part-0.parquet")
	b, err := os.ReadFile(damaged)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(damaged, b[:len(b)-100], 0o666))

	q := "SELECT trace, count(*) AS n FROM events GROUP BY ALL ORDER BY ALL"
	code, want, errOut := runTool("sql", "--csv", paths[0], paths[2], "-c", q)
	require.Equal(t, 0, code, errOut)
	code, got, errOut := runTool("sql", "--csv", ds, "-c", q)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got, "the other runs' events")
	require.Equal(t, "trace_reader: warning: "+damaged+": damaged, left out of table events (Invalid Input Error: No magic bytes found at end of file '"+damaged+"'); the other files are read (--strict: fail instead)\n", errOut)
	// Its other tables are whole.
	code, got, errOut = runTool("sql", "--csv", ds, "-c", "SELECT count(DISTINCT trace) AS runs FROM fetch_")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "runs\n3\n", got)

	code, got, errOut = runTool("sql", "--strict", "--csv", ds, "-c", q)
	require.Equal(t, 1, code)
	require.Empty(t, got)
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
	require.NotContains(t, errOut, `\n`, "no escaped newline")
	require.NotContains(t, errOut, "LINE 1", "no quote of our own SQL")
	require.Contains(t, errOut, ds+": table events: "+damaged+": a damaged Parquet file (")
	require.Contains(t, errOut, "remove it or export its run again; without --strict, sql reads the others")
}
