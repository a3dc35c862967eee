package chronon_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// A busy unit's chunks start at 4 KiB and double as it fills them, up to
// the block size; a unit that emits once keeps one 4 KiB chunk. The blocks
// in the file are the chunks: small ones first, then full blocks. Every
// event comes back, and the oracle reads the file.
func TestRingsGrowWithTheUnitsRate(t *testing.T) {
	tr, path := create(t, chronon.WithFlushInterval(0))
	busy, err := tr.NewUnit("busy")
	require.NoError(t, err)
	idle, err := tr.NewUnit("idle")
	require.NoError(t, err)
	f := formats(t)
	f.u64b.Emit(idle, 0, 1, true)
	require.Equal(t, int64(4<<10), chronon.RingBytes(tr), "one event: one 4 KiB chunk")
	const n = 200_000 // 35 bytes each: 6.7 MiB, 53 full blocks
	for i := uint64(0); i < n; i++ {
		f.u64b.Emit(busy, i, i, i&1 == 0)
	}
	used := chronon.RingBytes(tr)
	require.NoError(t, tr.Close())
	require.LessOrEqual(t, used, int64(4<<10+4*chronon.DefaultBlockSize), "the busy ring is at most its full size")

	rb := readBack(t, path)
	require.Len(t, rb.events, n+1)
	var sizes []uint32
	for _, bi := range rb.footer.Blocks {
		if len(bi.Units) == 1 && bi.Units[0] == busy.ID() || bi.Units == nil {
			sizes = append(sizes, bi.UncompressedSize)
		}
	}
	require.Greater(t, len(sizes), 10)
	require.LessOrEqual(t, sizes[0], uint32(4<<10), "the first chunk is small")
	require.Greater(t, sizes[len(sizes)-2], uint32(chronon.DefaultBlockSize-64), "a busy unit reaches full blocks")
	for i := 1; i < len(sizes)-1; i++ {
		require.GreaterOrEqual(t, sizes[i], sizes[i-1]-64, "chunks only grow: %v", sizes)
	}
	oracleCheck(t, path)
}

// Past the tracer's ring budget, units seal their chunks at the size they
// have instead of growing: the rings stay within the budget (plus a small
// chunk per slot), and nothing is dropped.
func TestRingBudgetSealsSmallerBlocks(t *testing.T) {
	const budget = 256 << 10
	tr, path := create(t, chronon.WithRingBudget(budget), chronon.WithFlushInterval(0))
	us := units(t, tr, 16)
	f := formats(t)
	const perUnit = 20_000
	for i := uint64(0); i < perUnit; i++ {
		for _, u := range us {
			f.u64b.Emit(u, i, i, true)
		}
	}
	used, growth := chronon.RingBytes(tr), chronon.RingGrowth(tr)
	require.NoError(t, tr.Close())
	require.LessOrEqual(t, growth, int64(budget), "the rings' growth within the budget")
	require.LessOrEqual(t, used, int64(budget+16*4*(4<<10)), "rings within the budget and a 4 KiB chunk per slot")
	for _, st := range tr.Stats().Units {
		require.Zero(t, st.Dropped)
		require.Equal(t, uint64(perUnit), st.Written)
	}
	rb := readBack(t, path)
	require.Len(t, rb.events, 16*perUnit)
	for _, bi := range rb.footer.Blocks {
		require.Less(t, bi.UncompressedSize, uint32(64<<10), "no unit grew its chunks to 64 KiB under a 256 KiB budget")
	}
	oracleCheck(t, path)
}

func TestRingBudgetValidation(t *testing.T) {
	for _, b := range []int{-1, 1, 64<<10 - 1} {
		_, err := chronon.Create(t.TempDir()+"/x.ctrace", chronon.WithRingBudget(b))
		require.ErrorContains(t, err, "ring budget")
	}
	for _, b := range []int{0, 64 << 10, 1 << 30} {
		tr, err := chronon.Create(t.TempDir()+"/x.ctrace", chronon.WithRingBudget(b))
		require.NoError(t, err)
		require.NoError(t, tr.Close())
	}
}

// Review finding: units that emitted once held the whole budget with their
// first chunks (3,000 of them: four 4 KiB chunks each), and a busy unit
// never grew past 4 KiB chunks (6 times the CPU, a third more file). The
// first chunks are the floor and not counted: the busy unit grows.
func TestIdleUnitsDoNotStarveABusyOne(t *testing.T) {
	tr, path := create(t, chronon.WithFlushInterval(0))
	us := units(t, tr, 3000)
	f := formats(t)
	for _, u := range us {
		f.u64b.Emit(u, 0, 0, true)
	}
	busy := us[0]
	for i := uint64(1); i <= 200_000; i++ {
		f.u64b.Emit(busy, i, i, true)
	}
	require.LessOrEqual(t, chronon.RingGrowth(tr), int64(chronon.DefaultRingBudget), "growth within the budget")
	require.NoError(t, tr.Close())
	rb := readBack(t, path)
	var largest uint32
	for _, bi := range rb.footer.Blocks {
		if len(bi.Units) == 1 && bi.Units[0] == busy.ID() {
			largest = max(largest, bi.UncompressedSize)
		}
	}
	require.GreaterOrEqual(t, largest, uint32(64<<10), "the busy unit's chunks grew")
	require.Len(t, rb.events, 3000+200_000)
}
