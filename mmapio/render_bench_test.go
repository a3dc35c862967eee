package mmapio

import (
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// BenchmarkRenderW1 renders the dump lines of a block of W1 events: the
// per-line cost of a dump, without decoding or merging.
func BenchmarkRenderW1(b *testing.B) {
	evs := ctracetest.W1Events(4096, 16, 1)
	var data []byte
	for _, e := range evs {
		data = schema.AppendEvent(data, e.Record, e.Args)
	}
	r := &Reader{sch: ctracetest.W1Schema(16)}
	r.buildTables()
	blk := Block{EventCount: uint32(len(evs)), MinCycle: evs[0].Cycle, MaxCycle: evs[len(evs)-1].Cycle,
		UncompressedSize: uint32(len(data)), CompressedSize: uint32(len(data))}
	bd := &blockData{data: data}
	if err := r.scanEvents(&blk, data, &selector{all: true}, bd); err != nil {
		b.Fatal(err)
	}
	seg := &segment{bds: []*blockData{bd}}
	for i := range bd.recs {
		seg.refs = append(seg.refs, uint64(i))
	}
	n := 0
	for b.Loop() {
		seg.rendered = 0
		r.renderSegment(seg, r.textLines(), 1<<30)
		n += len(seg.refs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/line")
	b.ReportMetric(float64(len(seg.text))/float64(len(seg.refs)), "bytes/line")
}
