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

// writeCase is one end-to-end benchmark: a workload run through a tracer
// with the given options.
type writeCase struct {
	name     string
	units    int
	rawBytes int64 // about this many raw bytes per event (SetBytes)
	opts     []chronon.Option
}

// runWrite creates a tracer, lets emit write b.N events into it, closes it
// and reports events/s, bytes/event and the process's CPU per event
// (cpu-ns/event: user + system time of every goroutine, the compression
// workers and the writer included).
func runWrite(b *testing.B, c writeCase, emit func(t *chronon.Tracer, n int) error) {
	path := b.TempDir() + "/bench.ctrace"
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := processCPU()
	t, err := chronon.Create(path, append([]chronon.Option{chronon.WithSimulationName(c.name)}, c.opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	if err := emit(t, b.N); err != nil {
		b.Fatal(err)
	}
	if err := t.Close(); err != nil {
		b.Fatal(err)
	}
	cpu1, _ := processCPU()
	b.StopTimer()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(c.rawBytes)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	b.ReportMetric(float64(fi.Size())/float64(b.N), "bytes/event")
	if cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/event")
	}
}

// BenchmarkW1 emits W1 events into a tracer and closes it: the whole
// pipeline (emit, seal, compress on every core, write, footer, fsync). One
// iteration is one event. Run it with a fixed count to match the tracegen
// target, e.g.
//
//	go test ./bench -run NONE -bench W1 -benchtime 20000000x
func BenchmarkW1(b *testing.B) {
	w, err := workload.RegisterW1()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []writeCase{
		{"16units", 16, 34, nil},
		{"16units_level1", 16, 34, []chronon.Option{chronon.WithLevel(chronon.LevelFastest)}},
		{"300units", 300, 34, nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			runWrite(b, c, func(t *chronon.Tracer, n int) error {
				us, err := workload.NewW1Units(t, c.units)
				if err != nil {
					return err
				}
				st := workload.NewW1State(1)
				w.Emit(us, &st, 0, n)
				return nil
			})
		})
	}
}

// BenchmarkPipeline is BenchmarkW1 for the pipeline-shaped workload
// (internal/workload: flows, spans, several arguments, about 43 raw bytes
// an event over 2 cores of 8 units).
//
//	go test ./bench -run NONE -bench Pipeline -benchtime 20000000x
func BenchmarkPipeline(b *testing.B) {
	p, err := workload.RegisterPipeline()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []writeCase{
		{"16units", 16, 43, nil},
		{"16units_level1", 16, 43, []chronon.Option{chronon.WithLevel(chronon.LevelFastest)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			runWrite(b, c, func(t *chronon.Tracer, n int) error {
				us, err := workload.NewPipelineUnits(t, c.units)
				if err != nil {
					return err
				}
				p.Emit(us, 1, n)
				return nil
			})
		})
	}
}
