//go:build cgo

package tracesql_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// TestBudgetRefusesABlockTooLarge: a block that decodes to more than the
// whole memory budget is an error naming the file and the block, in a
// query and in the Parquet export, not
// an allocation of whatever the footer claims; a budget that holds one
// block at a time answers, though every block overlaps every other in
// cycles (the scans never hold a unit's chain, or the merge point, at
// once).
func TestBudgetRefusesABlockTooLarge(t *testing.T) {
	b, err := ctracetest.OverlapBomb(6, 4<<20, 64)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "bomb.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	small := open(t, []string{path}, tracesql.WithMemoryBudget(2<<20))
	_, err = small.Query("SELECT sum(pc) FROM fetch_")
	if err == nil {
		rs, _ := small.Query("SELECT sum(pc) FROM fetch_")
		for rs.Next() {
		}
		err = rs.Err()
	}
	require.Error(t, err)
	require.Contains(t, err.Error(), path)
	require.Contains(t, err.Error(), "memory budget")
	out := filepath.Join(t.TempDir(), "pq")
	_, err = small.ExportParquet(out)
	require.Error(t, err)
	require.Contains(t, err.Error(), "memory budget")

	enough := open(t, []string{path}, tracesql.WithMemoryBudget(12<<20), tracesql.WithThreads(2))
	want := one(t, open(t, []string{path}), "SELECT count(*), sum(cycle), count(DISTINCT unit) FROM fetch_")
	require.Equal(t, want, one(t, enough, "SELECT count(*), sum(cycle), count(DISTINCT unit) FROM fetch_"))
	files, err := enough.ExportParquet(filepath.Join(t.TempDir(), "pq"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
}
