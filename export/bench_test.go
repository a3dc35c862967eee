package export

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// BenchmarkExportW1 exports a W1 trace to Perfetto. Set CHRONON_W1_TRACE to
// a trace written by `tracegen --workload w1 --events 20000000 --units 16`
// to measure the speed target (the default is a 1M-event trace made here).
func BenchmarkExportW1(b *testing.B) {
	trace := os.Getenv("CHRONON_W1_TRACE")
	if trace == "" {
		trace = w1Trace(b, 1_000_000)
	}
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		b.Run(format, func(b *testing.B) {
			r, err := mmapio.Open(trace)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			out := filepath.Join(b.TempDir(), "w1.out")
			b.ResetTimer()
			var events uint64
			for i := 0; i < b.N; i++ {
				res, err := Export(r, mmapio.Query{}, out, WithFormat(format))
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				for _, f := range res.Files {
					os.Remove(f)
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}

// BenchmarkExportKanata exports a 20,000-instruction pipesim trace (100k
// spans) to Kanata, and to Perfetto beside it for comparison; the target is
// >= 5 M events/s, as the Perfetto export.
func BenchmarkExportKanata(b *testing.B) {
	trace := pipesimTrace(b, 20_000)
	for _, format := range []string{FormatKanata, FormatPerfetto} {
		b.Run(format, func(b *testing.B) {
			r, err := mmapio.Open(trace)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			// Each export writes a new file, as trace_reader's temporary
			// output is; the last one is removed outside the timer.
			// Re-exporting onto one path made every export truncate the
			// previous 11 MB first, freeing its pages: a third of the
			// writer's work, which no real export pays.
			dir := b.TempDir()
			b.ReportAllocs()
			b.ResetTimer()
			var events uint64
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprintf("pipe%d.out", i))
				res, err := Export(r, mmapio.Query{}, out, WithFormat(format))
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
