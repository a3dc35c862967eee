package export

import (
	"math/rand/v2"
	"testing"
)

// TestFlowCountsModel checks flowCounts against a map: ids mostly counting
// up (the tail), some out of order and repeated (extra, counts added to a
// tail entry), two tables merged as the pre-pass's goroutines' are, and
// take and skip as the export calls them.
func TestFlowCountsModel(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		model := map[uint64]uint64{}
		parts := [2]*flowCounts{{}, {}}
		var id uint64
		for i := 0; i < 2000; i++ {
			p := 0
			if i >= 1000 {
				p = 1
			}
			switch r := rng.IntN(10); {
			case r < 6:
				id += uint64(rng.IntN(3)) + 1
			case r < 9:
				id = uint64(rng.IntN(int(id) + 1)) // back: repeated or new below the tail's end
			default:
				id = uint64(rng.IntN(5000)) + 1
			}
			n := uint64(rng.IntN(4)) + 1
			parts[p].add(id, n)
			model[id] += n
		}
		fc := parts[0].merge(parts[1])
		for id, n := range model {
			if rng.IntN(4) == 0 && n > 1 {
				fc.skip(id)
				n--
			}
			if got := fc.take(id); got != n {
				t.Fatalf("seed %d: id %d: take %d, want %d", seed, id, got, n)
			}
			if got := fc.take(id); got != 0 {
				t.Fatalf("seed %d: id %d: taken twice: %d", seed, id, got)
			}
		}
		if got := fc.take(1 << 40); got != 0 {
			t.Fatalf("seed %d: an id never counted has %d", seed, got)
		}
	}
}
