package keysort

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// Radix and Counting sort as a stable sort on the key does, wherever the
// result ends up (the keys' arrays or the scratch).
func TestSortsAreStable(t *testing.T) {
	rng := ctracetest.SplitMix64{State: 3}
	for _, n := range []int{1, 2, 17, 1000, 5000} {
		for _, span := range []uint64{1, 7, 1000, 1 << 22, 1 << 40} {
			keys, refs := make([]uint64, n), make([]uint64, n)
			for i := range keys {
				keys[i], refs[i] = rng.Next()%span, uint64(i)
			}
			type kv struct{ k, r uint64 }
			want := make([]kv, n)
			for i := range want {
				want[i] = kv{keys[i], refs[i]}
			}
			slices.SortStableFunc(want, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
			check := func(name string, k, r []uint64) {
				require.True(t, Ascending(k), "%s n %d span %d", name, n, span)
				for i := range want {
					require.Equal(t, want[i], kv{k[i], r[i]}, "%s n %d span %d at %d", name, n, span, i)
				}
			}
			kr, rr := Radix(slices.Clone(keys), slices.Clone(refs), make([]uint64, n), make([]uint64, n), Bits(span-1))
			check("radix", kr, rr)
			if span <= 1<<22 {
				kc, rc := Counting(keys, refs, make([]uint64, n), make([]uint64, n), make([]uint32, span))
				check("counting", kc, rc)
			}
		}
	}
	require.False(t, Ascending([]uint64{2, 1}))
}
