// Package exportcompare holds an export benchmark written against the
// public API only, so that scripts/exportcompare.sh can compile the same
// source against an earlier commit and the working tree and run them
// alternately (this host's speed moves by half between phases).
package exportcompare

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// BenchmarkExport exports the trace EXPORTCOMPARE_TRACE names to Kanata
// and to Perfetto. Each export writes a new file (as trace_reader's
// temporary output does); the previous one is removed outside the timer.
func BenchmarkExport(b *testing.B) {
	for _, format := range []string{export.FormatKanata, export.FormatPerfetto} {
		b.Run(format, func(b *testing.B) {
			trace := os.Getenv("EXPORTCOMPARE_TRACE")
			if trace == "" {
				b.Skip("EXPORTCOMPARE_TRACE names no trace: scripts/exportcompare.sh sets it")
			}
			r, err := mmapio.Open(trace)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			dir := b.TempDir()
			var events uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprintf("out%d", i))
				res, err := export.Export(r, mmapio.Query{}, out, export.WithFormat(format))
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				b.StopTimer()
				if err := os.Remove(out); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}
