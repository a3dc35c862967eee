package rawread

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// Index names the event a Decode of its block for the same
// query has at that index: the same cycle, unit, format and arguments,
// for every event of a merge that holds its blocks (the default budget),
// and for those it gives an index in a budget that may take windows.
func TestIndexMatchesDecode(t *testing.T) {
	path := w1File(t, 100_000, 4)
	for _, budget := range []int64{0, mmapio.MinMemoryBudget} {
		var opts []mmapio.Option
		if budget != 0 {
			opts = append(opts, mmapio.WithMemoryBudget(budget))
		}
		r, err := mmapio.Open(path, opts...)
		require.NoError(t, err)
		for _, q := range []mmapio.Query{{}, mmapio.Query{}.WithCycles(20_000, 60_000), mmapio.Query{}.WithUnits(1, 2)} {
			blocks := map[int32]*Block{}
			it := r.Iter(q)
			n, indexed := 0, 0
			for it.Next() {
				ev := it.Event()
				n++
				i := Index(it)
				if i < 0 {
					continue
				}
				indexed++
				d := blocks[ev.Block]
				if d == nil {
					d, err = Decode(r, ev.Block, q)
					require.NoError(t, err)
					blocks[ev.Block] = d
				}
				// Plain comparisons: testify's reflection on every event
				// was most of the test's time.
				if i >= d.Len() {
					t.Fatalf("block %d: index %d of %d events", ev.Block, i, d.Len())
				}
				got := d.Event(i)
				if ev.Cycle != got.Cycle || ev.UnitID != got.UnitID || ev.FormatID != got.FormatID || !bytes.Equal(ev.RawArgs(), got.RawArgs()) {
					t.Fatalf("block %d index %d: decoded (cycle %d, unit %d, format %d, args %x), iterated (cycle %d, unit %d, format %d, args %x)",
						ev.Block, i, got.Cycle, got.UnitID, got.FormatID, got.RawArgs(), ev.Cycle, ev.UnitID, ev.FormatID, ev.RawArgs())
				}
			}
			require.NoError(t, it.Err())
			it.Close()
			require.Equal(t, -1, Index(it), "after the end")
			require.NotZero(t, n)
			if budget == 0 {
				require.Equal(t, n, indexed, "every event of a merge holding its blocks has an index")
			} else {
				require.Less(t, indexed, n, "the small budget takes windows, whose events have no index")
			}
			for _, d := range blocks {
				d.Release()
			}
		}
		require.NoError(t, r.Close())
	}
}
