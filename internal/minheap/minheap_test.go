package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

type item struct {
	key, seq uint64
	p        *int
}

func (a *item) Less(b *item) bool { return a.key < b.key || a.key == b.key && a.seq < b.seq }

// Values come out least first, ties in the order Less gives them, however
// pushes and pops interleave; a popped slot keeps no pointer.
func TestHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Heap[item, *item]
	var want []item
	var got []item
	x := 7
	for seq := range uint64(5000) {
		it := item{key: rng.Uint64N(100), seq: seq, p: &x}
		h.Push(it)
		want = append(want, it)
		if rng.IntN(3) == 0 {
			got = append(got, h.Pop())
			require.Nil(t, h[:cap(h)][len(h)].p, "the popped slot is zeroed")
		}
	}
	// What was popped early was the least at its time: check against a
	// reference that replays the same operations.
	for len(h) > 0 {
		got = append(got, h.Pop())
	}
	require.Len(t, got, len(want))
	var ref []item
	rng = rand.New(rand.NewPCG(1, 2))
	var out []item
	for seq := range uint64(5000) {
		ref = append(ref, item{key: rng.Uint64N(100), seq: seq, p: &x})
		if rng.IntN(3) == 0 {
			i := 0 // the least, by a scan
			for j := range ref {
				if ref[j].Less(&ref[i]) {
					i = j
				}
			}
			out = append(out, ref[i])
			ref = slices.Delete(ref, i, i+1)
		}
	}
	slices.SortFunc(ref, func(a, b item) int {
		if a.Less(&b) {
			return -1
		}
		return 1
	})
	out = append(out, ref...)
	require.Equal(t, out, got)
}

func TestHeapPushPopDoNotAllocate(t *testing.T) {
	h := make(Heap[item, *item], 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		for i := range uint64(32) {
			h.Push(item{key: (i * 7919) % 31, seq: i})
		}
		for len(h) > 0 {
			h.Pop()
		}
	})
	require.Zero(t, allocs)
}
