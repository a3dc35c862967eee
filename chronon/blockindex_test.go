package chronon

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

// nullFile accepts every write and keeps nothing.
type nullFile struct{}

func (nullFile) WriteAt(b []byte, _ int64) (int, error) { return len(b), nil }
func (nullFile) Sync() error                            { return nil }
func (nullFile) Close() error                           { return nil }

// heapPerBlock appends n blocks through fileWriter.queueBlock and
// flushBlocks (the writer goroutine's path, in batches of maxBatchBlocks) to a file that keeps nothing, and returns the live heap
// the writer gained per block, measured after a GC, and the bytes Close
// allocated per block while building the footer.
func heapPerBlock(t testing.TB, n int) (kept, closing float64) {
	withOutput(t, func(string) (outFile, error) { return nullFile{}, nil })
	w, err := createFile("null.ctrace", true, 0, nil)
	require.NoError(t, err)
	w.writeSchema(&schema.Schema{Version: 1, Units: []schema.Unit{{ID: 3, Name: "u"}}}, 1)
	out := make([]byte, schema.BlockHeaderSize+200)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range n {
		c := uint64(i) * 100
		if !w.queueBlock(out, blockRec{minCycle: c, maxCycle: c + 99, events: 8, usize: 4096, unit: 3}) {
			t.Fatal("block not queued")
		}
		if (i+1)%maxBatchBlocks == 0 && !w.flushBlocks() {
			t.Fatal("blocks not written")
		}
	}
	require.True(t, w.flushBlocks())
	runtime.GC()
	runtime.ReadMemStats(&m1)
	kept = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(n)
	require.Equal(t, n, w.blocks.len())
	require.Equal(t, uint64(8*n), w.total)
	runtime.ReadMemStats(&m0)
	w.finish(nil, 1, nil)
	runtime.ReadMemStats(&m1)
	require.NoError(t, w.err)
	closing = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
	runtime.KeepAlive(w)
	return kept, closing
}

// The writer keeps at most 64 bytes per written block (a 10-hour run of
// 100 GB at 64 KiB blocks: under 100 MB), measured over 1M blocks.
func TestBlockIndexBytesPerBlock(t *testing.T) {
	kept, closing := heapPerBlock(t, 1<<20)
	t.Logf("kept %.1f B/block; Close allocated %.1f B/block for the footer", kept, closing)
	require.LessOrEqual(t, kept, 64.0, "bytes kept per written block")
	require.Less(t, closing, 100.0, "bytes Close allocates per block")
}

// go test -run NONE -bench FileWriterBlocks -benchtime 1x ./chronon
func BenchmarkFileWriterBlocks(b *testing.B) {
	for range b.N {
		kept, closing := heapPerBlock(b, 1<<20)
		b.ReportMetric(kept, "B/block")
		b.ReportMetric(closing, "closeB/block")
	}
}
