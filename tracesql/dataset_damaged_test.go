//go:build cgo

package tracesql_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// A dataset one of whose Parquet files is cut short: Open refuses it with
// ErrDamagedFile naming the file (not DuckDB's quote of the view's SQL);
// WithSkipDamaged reads the other files and Skipped names it.
func TestDatasetDamagedFile(t *testing.T) {
	ds := t.TempDir()
	for _, label := range []string{"a", "b", "c"} {
		db := open(t, []string{trace(t, rowsTrace("mixed"))})
		stage, err := os.MkdirTemp(ds, ".stage-")
		require.NoError(t, err)
		_, err = db.ExportParquet(stage)
		require.NoError(t, err)
		require.NoError(t, tracesql.PublishPartition(ds, label, stage))
		require.NoError(t, os.RemoveAll(stage))
	}
	damaged := filepath.Join(ds, "events", "trace=b", "part-0.parquet")
	b, err := os.ReadFile(damaged)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(damaged, b[:len(b)/2], 0o666))

	_, err = tracesql.Open([]string{ds})
	require.Error(t, err)
	require.True(t, errors.Is(err, tracesql.ErrDamagedFile), "%v", err)
	require.Contains(t, err.Error(), ds+": table events: "+damaged+": a damaged Parquet file (")
	require.NotContains(t, err.Error(), "\n")
	require.NotContains(t, err.Error(), "LINE 1")

	db := open(t, []string{ds}, tracesql.WithSkipDamaged())
	require.Len(t, db.Skipped(), 1)
	s := db.Skipped()[0]
	require.Equal(t, damaged, s.Path)
	require.Equal(t, "events", s.Table)
	require.NotEmpty(t, s.Reason)
	require.Equal(t, "a,c", one(t, db, "SELECT string_agg(DISTINCT trace, ',' ORDER BY trace) FROM events"))
	require.Equal(t, "3", one(t, db, "SELECT count(DISTINCT trace) FROM units"))
}
