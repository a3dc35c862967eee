package export

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// kEnds gives the ends in (cycle, seq) order, as one sorted list would,
// whether they fall in the wheel or past it (long spans, zero-length ones,
// ties with the heap, jumps in time far beyond the wheel).
func TestKanataEndsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, maxDur := range []uint64{3, 70, 1000} {
		var q kEnds
		var pending []kEnd
		now, seq := uint64(0), uint64(0)
		for step := 0; step < 6_000; step++ {
			if rng.IntN(3) == 0 { // time moves, sometimes far
				now += rng.Uint64N(5)
				if rng.IntN(100) == 0 {
					now += 500
				}
			}
			// Take what is due, in order, as flushEnds does. pending is
			// kept sorted by (cycle, seq) as ends are added, so its head
			// is the end due first.
			for {
				e, ok := q.next(now)
				if !ok {
					break
				}
				require.NotEmpty(t, pending)
				require.Equal(t, pending[0].cycle, e.cycle)
				require.Equal(t, pending[0].seq, e.seq)
				pending = pending[1:]
			}
			q.done(now)
			if len(pending) > 0 { // sorted: the head is the earliest end left
				require.Greater(t, pending[0].cycle, now, "all due ends were taken")
			}
			require.Equal(t, len(pending), q.len())
			for k := rng.IntN(3); k > 0; k-- {
				seq++
				e := kEnd{cycle: now + rng.Uint64N(maxDur+1), seq: seq}
				q.push(e)
				i, _ := slices.BinarySearchFunc(pending, e, cmpEnd)
				pending = slices.Insert(pending, i, e)
			}
		}
	}
}

func cmpEnd(a, b kEnd) int {
	return cmp.Or(cmp.Compare(a.cycle, b.cycle), cmp.Compare(a.seq, b.seq))
}

// BenchmarkKanataFarEnds pushes and takes ends of spans longer than the
// wheel (memory accesses, long stalls): the heap's work.
func BenchmarkKanataFarEnds(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	durs := make([]uint64, 4096)
	for i := range durs {
		durs[i] = kWheel + rng.Uint64N(2000)
	}
	var q kEnds
	q.min = ^uint64(0)
	now, seq := uint64(0), uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		seq++
		q.push(kEnd{cycle: now + durs[i%len(durs)], seq: seq})
		if q.len() > 1000 {
			e, _ := q.next(^uint64(0))
			now = e.cycle
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mends/s")
}
