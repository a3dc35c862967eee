// Package bench holds the end-to-end benchmarks of the speed targets. The
// per-package micro-benchmarks live beside their code (chronon's
// BenchmarkEmit, internal/zrec's BenchmarkEncode, mmapio's readers).
package bench

import (
	"os"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
)

// BenchmarkW1 emits W1 events into a tracer and closes it: the whole
// pipeline (emit, seal, compress on every core, write, footer, fsync). One
// iteration is one event; events/s and bytes/event are reported. Run it
// with a fixed count to match the tracegen target, e.g.
//
//	go test ./bench -run NONE -bench W1 -benchtime 20000000x
func BenchmarkW1(b *testing.B) {
	for _, c := range []struct {
		name  string
		units int
		opts  []chronon.Option
	}{
		{"16units", 16, nil},
		{"16units_level1", 16, []chronon.Option{chronon.WithLevel(chronon.LevelFastest)}},
		{"300units", 300, nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := b.TempDir() + "/w1.ctrace"
			w, err := workload.RegisterW1()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			t, err := chronon.Create(path, append([]chronon.Option{chronon.WithSimulationName("w1")}, c.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			us, err := workload.NewW1Units(t, c.units)
			if err != nil {
				b.Fatal(err)
			}
			st := workload.NewW1State(1)
			w.Emit(us, &st, 0, b.N)
			if err := t.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(34)) // about 34 raw bytes per W1 event
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
			b.ReportMetric(float64(fi.Size())/float64(b.N), "bytes/event")
		})
	}
}
