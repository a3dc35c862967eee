package mmapio

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// The benchmarks read the 20 M-event W1 trace (16 units, one unit per
// 64 KiB zstd block). It is written once (about 5 s, 130 MB) to
// $CTRACE_BENCH_DIR, or the user cache directory, and reused; set
// CHRONON_W1_TRACE to a file from tracegen to read what the runtime wrote
// instead (the cached one comes from a test writer with klauspost zstd):
//
//	bin/tracegen --workload w1 --events 20000000 --units 16 -o /tmp/w1.ctrace
//	CHRONON_W1_TRACE=/tmp/w1.ctrace go test ./mmapio -run NONE -bench W1 -benchtime 1x
func w1Trace(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("CHRONON_W1_TRACE"); p != "" {
		return p
	}
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
	path, err := ctracetest.EnsureW1File(dir, ctracetest.W1BenchEvents, ctracetest.W1BenchUnits)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkIterateW1 iterates over every event through the Go API, without
// text: the "events/s" figure.
func BenchmarkIterateW1(b *testing.B) {
	path := w1Trace(b)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	var n int
	var sum uint64
	for range b.N {
		for ev := range r.Events(Query{}) {
			n++
			sum += ev.Cycle + uint64(len(ev.RawArgs()))
		}
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	_ = sum
}

// BenchmarkDumpW1 renders the full dump to io.Discard.
func BenchmarkDumpW1(b *testing.B) {
	path := w1Trace(b)
	r, err := Open(path)
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
}

// BenchmarkUnitW1 dumps one unit's events (blocks of other units skipped).
func BenchmarkUnitW1(b *testing.B) {
	path := w1Trace(b)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	for range b.N {
		if _, err := writeDump(r, io.Discard, Query{}.WithUnits(r.UnitsNamed("core1.dram")...), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCyclesW1 dumps a 1000-cycle window.
func BenchmarkCyclesW1(b *testing.B) {
	path := w1Trace(b)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	for range b.N {
		if _, err := writeDump(r, io.Discard, Query{}.WithCycles(9_000_000, 9_001_000), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenW1 opens the trace (header, schema, footer of ~10k blocks, index).
func BenchmarkOpenW1(b *testing.B) {
	path := w1Trace(b)
	for range b.N {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
