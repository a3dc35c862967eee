package mmapio

import (
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// BenchmarkScanEvents measures the per-event cost of checking a decoded
// block and recording its events.
func BenchmarkScanEvents(b *testing.B) {
	evs := ctracetest.W1Events(1900, 1, 1)
	var data []byte
	for _, e := range evs {
		data = schema.AppendEvent(data, e.Record, e.Args)
	}
	blk := Block{EventCount: uint32(len(evs)), MinCycle: evs[0].Cycle, MaxCycle: evs[len(evs)-1].Cycle,
		UncompressedSize: uint32(len(data)), CompressedSize: uint32(len(data))}
	r := &Reader{}
	sel := &selector{all: true}
	var bd blockData
	n := 0
	for b.Loop() {
		if err := r.scanEvents(&blk, data, sel, &bd); err != nil {
			b.Fatal(err)
		}
		n += len(evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}
