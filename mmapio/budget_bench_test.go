package mmapio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// BenchmarkBudgetWindows dumps a file whose blocks all overlap (2 M W1
// events over 32 units, one unit per 1 MiB zstd block: the blocks at the
// merge point take ~110 MiB decoded) with the default budget (the normal
// path: every block decoded once) and with budgets that force windows
// (blocks decoded again for every window they overlap): the time cost of
// the windowed path. The file is written once to $CTRACE_BENCH_DIR or the
// user cache directory.
func BenchmarkBudgetWindows(b *testing.B) {
	const events, units = 2_000_000, 32
	dir := os.Getenv("CTRACE_BENCH_DIR")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			b.Skip("no cache directory for the benchmark trace:", err)
		}
		dir = filepath.Join(c, "chronon-go-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("w1-%d-%du-1MiB.ctrace", events, units))
	if _, err := os.Stat(path); err != nil {
		opts := ctracetest.W1BenchOptions()
		opts.BlockSize = 1 << 20
		if err := ctracetest.WriteW1File(path, events, units, opts); err != nil {
			b.Fatal(err)
		}
	}
	for _, budget := range []int64{DefaultMemoryBudget, 64 << 20, 16 << 20} {
		b.Run(fmt.Sprintf("budget=%dMiB", budget>>20), func(b *testing.B) {
			r, err := Open(path, WithMemoryBudget(budget))
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ResetTimer()
			var n int
			for range b.N {
				c, err := writeDump(r, io.Discard, Query{}, 0)
				if err != nil {
					b.Fatal(err)
				}
				n += c
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(r.memPeak.Load())/(1<<20), "peak-MiB")
			b.ReportMetric(float64(r.f.Decodes())/float64(b.N)/float64(r.NumBlocks()), "decodes/block")
		})
	}
}
