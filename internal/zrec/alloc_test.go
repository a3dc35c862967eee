package zrec

import "testing"

// TestZeroAllocs checks that a warmed-up Encoder does not allocate when dst
// has room, for all block shapes (W1, mixed, multi-block, random).
func TestZeroAllocs(t *testing.T) {
	blocks, _ := w1Blocks(20_000, 16, 64<<10, 1)
	inputs := [][]byte{blocks[0], blocks[1], mixedBlock(20_000, 1), randomBytes(300_000, 1), nil, {1, 2, 3}}
	e := newTestEncoder()
	dst := make([]byte, 0, MaxEncodedSize(1<<20))
	for _, in := range inputs { // warm up: buffers grow to their final size
		dst = e.EncodeAll(in, dst[:0])
	}
	for i, in := range inputs {
		allocs := testing.AllocsPerRun(20, func() {
			dst = e.EncodeAll(in, dst[:0])
		})
		if allocs != 0 {
			t.Errorf("input %d (%d bytes): %v allocations per EncodeAll", i, len(in), allocs)
		}
	}
}
