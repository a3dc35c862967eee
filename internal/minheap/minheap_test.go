package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Items come out least first by (Key, Seq) however pushes and pops
// interleave, as a scan for the least finds them; a popped slot keeps no
// pointer.
func TestHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	less := func(a, b Item[*int]) bool { return a.less(&b) }
	var h Heap[*int]
	var ref, got, want []Item[*int]
	x := 7
	for seq := range uint64(5000) {
		key := rng.Uint64N(100)
		h.Push(key, seq, &x)
		ref = append(ref, Item[*int]{key, seq, &x})
		if rng.IntN(3) == 0 {
			got = append(got, h.Pop())
			require.Nil(t, h[:len(h)+1][len(h)].Value, "the popped slot is zeroed")
			i := 0 // the least, by a scan
			for j := range ref {
				if less(ref[j], ref[i]) {
					i = j
				}
			}
			want = append(want, ref[i])
			ref = slices.Delete(ref, i, i+1)
		}
	}
	for len(h) > 0 {
		got = append(got, h.Pop())
	}
	slices.SortFunc(ref, func(a, b Item[*int]) int {
		if less(a, b) {
			return -1
		}
		return 1
	})
	want = append(want, ref...)
	require.Len(t, got, 5000)
	require.Equal(t, want, got)
}

func TestHeapPushPopDoNotAllocate(t *testing.T) {
	h := make(Heap[int32], 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		for i := range uint64(32) {
			h.Push((i*7919)%31, i, int32(i))
		}
		for len(h) > 0 {
			h.Pop()
		}
	})
	require.Zero(t, allocs)
}
