package rawread

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// TestDecodeMatchesEvents: the blocks Plan lists, decoded one by
// one, hold exactly the events an iteration of the same query yields (as a
// multiset: the order across blocks is not merged), and a window decodes
// only the blocks it plans.
func TestDecodeMatchesEvents(t *testing.T) {
	r := openW1(t, 200_000, 8)
	queries := []mmapio.Query{
		{},
		mmapio.Query{}.WithCycles(50_000, 51_000),
		mmapio.Query{}.WithUnits(r.UnitsNamed("core1")...),
		mmapio.Query{}.WithCycles(10_000, 90_000).WithUnits(3),
	}
	for qi, q := range queries {
		want := map[evKey]int{}
		n := 0
		for ev := range r.Events(q) {
			want[keyOf(ev)]++
			n++
		}
		require.NoError(t, r.Err())
		plan, err := Plan(r, q)
		require.NoError(t, err)
		before := Decodes(r)
		got := map[evKey]int{}
		m := 0
		for _, bi := range plan {
			d, err := Decode(r, bi, q)
			require.NoError(t, err)
			for i := range d.Len() {
				ev := d.Event(i)
				if c := d.Cycle(i); c != ev.Cycle { // not testify: it runs for every event
					t.Fatalf("query %d block %d event %d: Cycle %d, Event's %d", qi, bi, i, c, ev.Cycle)
				}
				got[keyOf(ev)]++
				m++
			}
			d.Release()
			d.Release()
		}
		require.Equal(t, int64(len(plan)), Decodes(r)-before, "query %d", qi)
		require.Equal(t, n, m, "query %d", qi)
		require.Equal(t, want, got, "query %d", qi)
		if qi == 1 {
			require.Less(t, len(plan), r.NumBlocks()/4, "a window plans few blocks")
		}
	}
	_, err := Decode(r, int32(r.NumBlocks()), mmapio.Query{})
	require.ErrorContains(t, err, "does not exist")
	require.NoError(t, r.Close())
	_, err = Decode(r, 0, mmapio.Query{})
	require.ErrorIs(t, err, mmapio.ErrClosed)
}
