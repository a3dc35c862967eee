package export

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// kInsts finds what a map would, for ids in sequence, for ids that all
// share their low bits (every one past the first in the overflow map, then
// the slots grow, bounded) and for random ids, through puts and deletes.
func TestKInstsMatchesMap(t *testing.T) {
	for name, id := range map[string]func(i int, rng *rand.Rand) uint64{
		"sequence": func(i int, _ *rand.Rand) uint64 { return uint64(i + 1) },
		"same low bits": func(i int, _ *rand.Rand) uint64 {
			return uint64(i+1) << 24
		},
		"random": func(_ int, rng *rand.Rand) uint64 { return rng.Uint64() | 1 },
	} {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var tab kInsts
			want := map[uint64]*kInst{}
			var live []*kInst
			for i := 0; i < 20_000; i++ {
				in := &kInst{flow: id(i, rng)}
				if want[in.flow] != nil {
					continue
				}
				// Plain comparisons below: testify's reflection on every
				// operation was most of the test's time.
				if got := tab.get(in.flow); got != nil {
					t.Fatalf("get(%#x) before put: %p", in.flow, got)
				}
				tab.put(in)
				want[in.flow] = in
				live = append(live, in)
				if len(live) > 3000 || rng.IntN(3) == 0 { // retire one, mostly the oldest
					k := 0
					if rng.IntN(4) == 0 {
						k = rng.IntN(len(live))
					}
					tab.del(live[k])
					delete(want, live[k].flow)
					live = append(live[:k], live[k+1:]...)
				}
				if i%1000 == 0 {
					n := 0
					tab.each(func(in *kInst) {
						n++
						if want[in.flow] != in {
							t.Fatalf("each gave %p for flow %#x, the map %p", in, in.flow, want[in.flow])
						}
					})
					require.Equal(t, len(want), n)
				}
			}
			for _, in := range live {
				require.Same(t, in, tab.get(in.flow))
				require.Nil(t, tab.get(in.flow+1<<40))
			}
			require.LessOrEqual(t, len(tab.slots), kMaxSlots)
			require.LessOrEqual(t, len(tab.slots), max(kMinSlots, 32*len(live)), "the slots stay within the instructions in flight")
		})
	}
}
