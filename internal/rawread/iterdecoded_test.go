package rawread

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// IterDecoded yields exactly what Iter yields, in the same order, whether
// it is given every block of the plan, some (every other one), blocks
// decoded for another query (released, decoded again) or blocks twice;
// the blocks given for the query are not decoded again, the others are.
func TestIterDecodedMatchesIter(t *testing.T) {
	r := openW1(t, 100_000, 4)
	read := func(it *mmapio.Iterator) []evKey {
		defer it.Close()
		var out []evKey
		for it.Next() {
			ev := it.Event()
			out = append(out, keyOf(ev))
		}
		require.NoError(t, it.Err())
		return out
	}
	other := mmapio.Query{}.WithCycles(0, 10)
	for qi, q := range []mmapio.Query{{}, mmapio.Query{}.WithCycles(20_000, 60_000), mmapio.Query{}.WithUnits(1, 2)} {
		want := read(r.Iter(q))
		require.NotEmpty(t, want)
		plan, err := Plan(r, q)
		require.NoError(t, err)
		require.Greater(t, len(plan), 4)
		decode := func(bi int32, q mmapio.Query) *Block {
			d, err := Decode(r, bi, q)
			require.NoError(t, err)
			return d
		}
		for _, c := range []struct {
			name  string
			given func() []*Block
			again int // blocks the iteration decodes
		}{
			{"all", func() []*Block {
				var ds []*Block
				for _, bi := range plan {
					ds = append(ds, decode(bi, q))
				}
				return ds
			}, 0},
			{"every other", func() []*Block {
				var ds []*Block
				for i, bi := range plan {
					if i%2 == 0 {
						ds = append(ds, decode(bi, q))
					}
				}
				return ds
			}, len(plan) / 2},
			{"another query", func() []*Block {
				return []*Block{decode(plan[0], other), decode(plan[1], q), decode(plan[1], q)}
			}, len(plan) - 1},
		} {
			given := c.given()
			before := Decodes(r)
			got := read(IterDecoded(r, q, given))
			require.Equal(t, want, got, "query %d, %s", qi, c.name)
			require.Equal(t, int64(c.again), Decodes(r)-before, "query %d, %s: blocks decoded again", qi, c.name)
			for _, d := range given {
				require.Zero(t, d.Bytes(), "query %d, %s: the iteration owns the blocks", qi, c.name)
			}
		}
	}
	// Given blocks an iteration stops before using, or a closed Reader's,
	// go back without a fault.
	plan, err := Plan(r, mmapio.Query{})
	require.NoError(t, err)
	d, err := Decode(r, plan[len(plan)-1], mmapio.Query{})
	require.NoError(t, err)
	it := IterDecoded(r, mmapio.Query{}, []*Block{d})
	require.True(t, it.Next())
	it.Close()
	d, err = Decode(r, plan[0], mmapio.Query{})
	require.NoError(t, err)
	require.NoError(t, r.Close())
	it = IterDecoded(r, mmapio.Query{}, []*Block{d})
	require.False(t, it.Next())
	require.ErrorIs(t, it.Err(), mmapio.ErrClosed)
}
