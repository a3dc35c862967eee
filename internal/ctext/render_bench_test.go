package ctext

import (
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// BenchmarkRenderW1 renders the dump lines of a block of W1 events: the
// per-line cost of a dump, without decoding or merging.
func BenchmarkRenderW1(b *testing.B) {
	evs := ctracetest.W1Events(4096, 16, 1)
	s := ctracetest.W1Schema(16)
	names := make([]string, 17)
	for _, u := range s.Units {
		names[u.ID] = u.Name
	}
	formats := NewFormatTable(16)
	for _, f := range s.Formats {
		formats.Add(f.ID, Compile(f.Format, f.ArgTypes))
	}
	l := NewLines(names, formats)
	var text []byte
	n := 0
	for b.Loop() {
		text = text[:0]
		var cc CycleCache
		for i := range evs {
			e := &evs[i]
			text = l.AppendLine(text, &cc, e.Cycle, e.SourceID, e.FormatID, e.ArgCount, e.Args)
		}
		n += len(evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/line")
	b.ReportMetric(float64(len(text))/float64(len(evs)), "bytes/line")
}
