package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// BenchmarkExportFlows exports a pipesim trace (every event on a flow) to
// Chrome JSON, whose flow ends need the counting pre-pass. Set
// CHRONON_PIPE_TRACE to a trace written by `pipesim -n 1000000` to measure
// at scale (the default is 100000 instructions made here).
func BenchmarkExportFlows(b *testing.B) {
	trace := os.Getenv("CHRONON_PIPE_TRACE")
	if trace == "" {
		trace = pipesimTrace(b, 100_000)
	}
	r, err := mmapio.Open(trace)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	out := filepath.Join(b.TempDir(), "pipe.json")
	b.ResetTimer()
	var events uint64
	for i := 0; i < b.N; i++ {
		res, err := Export(r, mmapio.Query{}, out, WithFormat(FormatChromeJSON))
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		for _, f := range res.Files {
			os.Remove(f)
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkExportWindowLookback exports the last 1000 cycles of a pipesim
// trace: the cost is the lookback over the spans before the window.
func BenchmarkExportWindowLookback(b *testing.B) {
	trace := os.Getenv("CHRONON_PIPE_TRACE")
	if trace == "" {
		trace = pipesimTrace(b, 100_000)
	}
	r, err := mmapio.Open(trace)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var last uint64
	for _, bl := range r.Blocks() {
		last = max(last, bl.MaxCycle)
	}
	out := filepath.Join(b.TempDir(), "win.pftrace")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Export(r, mmapio.Query{}.WithCycles(last-1000, last), out); err != nil {
			b.Fatal(err)
		}
	}
}
