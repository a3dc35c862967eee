package tracefile

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// Recovery verifies blocks in parallel, but no more at once than the memory
// budget holds.
func TestRecoveryVerifiersWithinBudget(t *testing.T) {
	f := &File{opts: Options{MemBudget: 256 << 20}}
	big := Block{UncompressedSize: schema.MaxBlockSize, CompressedSize: 100}
	cands := []Block{big, big, big, big, big, big, big, big}
	require.Equal(t, 4, f.Verifiers(cands))
	f.opts.MemBudget = 1 << 20
	require.Equal(t, 1, f.Verifiers(cands))
	raw := Block{UncompressedSize: 4096, CompressedSize: 4096}
	require.Equal(t, 3, f.Verifiers([]Block{raw, raw, raw}))
}

// A panic that is not a fault is not swallowed by the guards.
func TestGuardKeepsOtherPanics(t *testing.T) {
	f := &File{path: "x"}
	require.PanicsWithValue(t, "boom", func() {
		var err error
		defer f.Guard(&err, PanicOnFault())
		panic("boom")
	})
}

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
	f := &File{}
	sel := &Selector{All: true}
	var bd Decoded
	n := 0
	for b.Loop() {
		if err := f.ScanEvents(&blk, data, sel, &bd); err != nil {
			b.Fatal(err)
		}
		n += len(evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}
