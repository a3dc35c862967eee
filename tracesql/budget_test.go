//go:build cgo

package tracesql_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

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

// TestScanHeapStaysInBudget: a full scan of overlapping blocks that each
// take most of the budget decoded holds one at a time over two threads
// (the holders park between chunks: a thread waits for them rather than
// take a second block), and the Go heap's live peak stays within the
// budget plus a stated slack: no stale rows of the block before, no
// decoded buffer pinned by the zstd decoder's idle states. Before, the
// heap held 2 blocks taken, the 2 threads' previous ones and 4 pinned
// buffers.
func TestScanHeapStaysInBudget(t *testing.T) {
	const blockBytes = 24 << 20 // a 32 MiB buffer: one the pool does not keep between scans
	blocks := 6
	if raceEnabled {
		blocks = 3 // still more than the budget holds at once (stage 5 runs all six)
	}
	b, err := ctracetest.OverlapBomb(blocks, blockBytes, 64)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "bomb.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	const limit = 80 << 20 // one block (24 MiB of data, 31 MiB of records, 4 MiB of rows) fits, two do not
	const slack = 24 << 20 // footer, DuckDB's Go side, a decoder state's last buffer
	db := open(t, []string{path}, tracesql.WithMemoryBudget(limit), tracesql.WithThreads(2))

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		for {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			most = max(most, ms.HeapAlloc)
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	got := one(t, db, "SELECT count(*), sum(cycle) FROM events")
	close(stop)
	most := <-peak
	require.Equal(t, one(t, open(t, []string{path}), "SELECT count(*), sum(cycle) FROM events"), got)
	grew := int64(most) - int64(base.HeapAlloc)
	t.Logf("live heap peak %d MiB above the %d MiB before the query (budget %d MiB)", grew>>20, base.HeapAlloc>>20, limit>>20)
	require.LessOrEqual(t, grew, int64(limit+slack), "Go heap's live peak during the scan")
	require.LessOrEqual(t, tracesql.BudgetPeak(db), int64(limit), "decoded data held at once")
}
