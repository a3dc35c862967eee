package mmapio_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// TestDecodeBlockMatchesEvents: the blocks BlockPlan lists, decoded one by
// one, hold exactly the events an iteration of the same query yields (as a
// multiset: the order across blocks is not merged), and a window decodes
// only the blocks it plans.
func TestDecodeBlockMatchesEvents(t *testing.T) {
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
		plan, err := r.BlockPlan(q)
		require.NoError(t, err)
		before := r.BlocksDecoded()
		got := map[evKey]int{}
		m := 0
		for _, bi := range plan {
			d, err := r.DecodeBlock(bi, q)
			require.NoError(t, err)
			for i := range d.Len() {
				ev := d.Event(i)
				require.Equal(t, ev.Cycle, d.Cycle(i))
				got[keyOf(ev)]++
				m++
			}
			d.Release()
			d.Release()
		}
		require.Equal(t, int64(len(plan)), r.BlocksDecoded()-before, "query %d", qi)
		require.Equal(t, n, m, "query %d", qi)
		require.Equal(t, want, got, "query %d", qi)
		if qi == 1 {
			require.Less(t, len(plan), r.NumBlocks()/4, "a window plans few blocks")
		}
	}
	_, err := r.DecodeBlock(int32(r.NumBlocks()), mmapio.Query{})
	require.ErrorContains(t, err, "does not exist")
	require.NoError(t, r.Close())
	_, err = r.DecodeBlock(0, mmapio.Query{})
	require.ErrorIs(t, err, mmapio.ErrClosed)
}
