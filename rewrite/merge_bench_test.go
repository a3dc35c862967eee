package rewrite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// BenchmarkMergeRanks merges 4 rank files of 500k W1 events each (16 units
// per file, the same unit ids in every file): the first file's blocks are
// copied, the other three files' blocks are renumbered. Bytes are the
// inputs' bytes; events/s counts every event written.
//
//	go test -run NONE -bench MergeRanks -benchtime 5x ./rewrite
func BenchmarkMergeRanks(b *testing.B) {
	const files, perFile = 4, 500_000
	dir := b.TempDir()
	var paths []string
	var inBytes int64
	for i := range files {
		p := writeW1T(b, dir, fmt.Sprintf("r%d.ctrace", i), perFile, ctracetest.W1BenchUnits, uint64(i+1),
			ctracetest.W1BenchOptions(), schema.KeyValue{Key: "rank", Value: fmt.Sprint(i)})
		fi, err := os.Stat(p)
		require.NoError(b, err)
		inBytes += fi.Size()
		paths = append(paths, p)
	}
	m, err := mmapio.OpenAll(paths)
	require.NoError(b, err)
	defer m.Close()
	out := filepath.Join(dir, "merged.ctrace")
	b.SetBytes(inBytes)
	b.ResetTimer()
	var res Result
	for range b.N {
		f, err := os.Create(out)
		require.NoError(b, err)
		res, err = Merge(f, m, MergeOptions{})
		require.NoError(b, err)
		require.NoError(b, f.Close())
	}
	b.StopTimer()
	require.Equal(b, uint64(files*perFile), res.Events)
	b.ReportMetric(float64(res.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(res.Bytes)/float64(res.Events), "B/event")
}
