package export

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The pre-pass counts each flow's events in any block order; the export
// counts down from the count when the flow's instruction begins. Whether
// an event has a later one in its flow must come out as an ordered pass
// over the iteration says (the reference below): random 64-bit flow ids,
// ids reused after their flow ended, flows long enough to leave the
// pre-pass's cache, several units and many small blocks, under a window
// and a unit selection too.
func TestKanataPrepassMatchesOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096))
	require.NoError(t, err)
	var units []*chronon.Unit
	for _, name := range []string{"core0.fetch", "core0.exec", "core1.fetch"} {
		u, err := tr.NewUnit(name)
		require.NoError(t, err)
		units = append(units, u)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]uint64, 0, 9000)
	for i := 0; i < 9000; i++ {
		switch {
		case i < 6000:
			pool = append(pool, uint64(i)+1) // sequence numbers
		default:
			pool = append(pool, rng.Uint64()|1) // anything
		}
	}
	for c := uint64(0); c < 6000; c++ {
		for _, u := range units {
			for k := rng.IntN(4); k > 0; k-- {
				var flow uint64
				switch r := rng.IntN(10); {
				case r < 6: // near the front: ids in flight
					flow = pool[min(int(c)+rng.IntN(40), len(pool)-1)]
				case r < 8: // a long-lived or reused id
					flow = pool[rng.IntN(len(pool))]
				default:
					flow = uint64(rng.IntN(5)) // 0: no flow
				}
				if rng.IntN(3) == 0 {
					kText.Emit(u, c, flow, "x")
				} else {
					kSpan.Complete(u, c, uint64(rng.IntN(9)), 0, flow)
				}
			}
		}
	}
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	require.Greater(t, len(r.Blocks()), 50)
	fmts := kanataFormats(r)
	for _, q := range []mmapio.Query{{}, mmapio.Query{}.WithCycles(1000, 4000), mmapio.Query{}.WithUnits(0, 2)} {
		want := orderedMore(t, r, q, fmts)
		le, err := scanLastEvents(r, q, fmts, kUnits{r, cacheUnits(r)}, nil, nil)
		require.NoError(t, err)
		require.Equal(t, uint64(len(want)), le.n)
		left := map[uint64]uint64{}
		var v argview.View
		i := 0
		it := r.Iter(q)
		for it.Next() {
			ev := it.Event()
			f := fmts[ev.FormatID]
			if f == nil || f.flow < 0 {
				continue
			}
			flow := flowEventID(f, &ev, &v)
			if flow == 0 {
				continue
			}
			n, ok := left[flow]
			if !ok {
				n = le.take(0, flow)
			}
			n--
			if n == 0 {
				delete(left, flow)
			} else {
				left[flow] = n
			}
			require.Equal(t, want[i], n != 0, "flow event %d (flow %d, cycle %d)", i, flow, ev.Cycle)
			i++
		}
		it.Close()
		require.NoError(t, it.Err())
		require.Equal(t, len(want), i)
	}
}

// orderedMore is the reference: in iteration order, whether each flow
// event has a later event of its flow.
func orderedMore(t *testing.T, r *mmapio.Reader, q mmapio.Query, fmts []*kFmt) []bool {
	var more []bool
	last := map[uint64]int{}
	var v argview.View
	it := r.Iter(q)
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		f := fmts[ev.FormatID]
		if f == nil || f.flow < 0 {
			continue
		}
		flow := flowEventID(f, &ev, &v)
		if flow == 0 {
			continue
		}
		if p, ok := last[flow]; ok {
			more[p] = true
		}
		last[flow] = len(more)
		more = append(more, false)
	}
	require.NoError(t, it.Err())
	return more
}
