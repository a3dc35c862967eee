package analysis

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var (
	heldSpan = chronon.MustSpan("held test open")
	heldTask = chronon.MustAsyncSpan("held test task")
)

// heldTrace writes n spans begun and never ended: each on a lane of its
// own of units units (lanes), or async spans with an id each.
func heldTrace(t *testing.T, n, units int, lanes bool) string {
	path := filepath.Join(t.TempDir(), "held.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	us := make([]*chronon.Unit, units)
	for i := range us {
		us[i], err = tr.NewUnit("u" + string(rune('a'+i)))
		require.NoError(t, err)
	}
	for i := range n {
		u := us[i%units]
		if lanes {
			heldSpan.Begin(u, uint64(i), uint32(i/units), 0)
		} else {
			heldTask.Begin(u, uint64(i), uint64(i)+1, 0)
		}
	}
	require.NoError(t, tr.Close())
	return path
}

// What Stats holds grows with the spans open at once and the lanes seen,
// not with its output: 300,000 lanes each with a span never ended took
// 120 MB and 13 s at --memory 4MiB, 2 million async spans never ended
// 486 MB and 30 s. Past a quarter of the reader's memory budget Stats stops
// early with an error naming the file, the cycle and the budget; a budget
// that holds them reads every span.
func TestStatsKeepsOpenSpansAndLanesInTheBudget(t *testing.T) {
	cases := []struct {
		name         string
		n, units     int
		lanes        bool
		wantOpenLane int // occupancy rows with a lane, when read whole
	}{
		{"lanes", 200_000, 1, true, 200_000},
		{"units x lanes", 200_000, 8, true, 200_000},
		{"async", 300_000, 1, false, 0},
	}
	for _, tc := range cases {
		path := heldTrace(t, tc.n, tc.units, tc.lanes)

		small, err := mmapio.Open(path, mmapio.WithMemoryBudget(1<<20))
		require.NoError(t, err)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Stats(small, mmapio.Query{})
		runtime.ReadMemStats(&after)
		require.NoError(t, small.Close())
		require.Error(t, err, tc.name)
		require.ErrorContains(t, err, path)
		require.ErrorContains(t, err, "quarter of the memory budget (1 MiB)")
		require.ErrorContains(t, err, "(--memory)")
		require.Regexp(t, `: at cycle [1-9][0-9]* the statistics hold [1-9][0-9]* (KiB|MiB) for [1-9][0-9]* spans open at once`, err.Error())
		if tc.lanes {
			require.Regexp(t, ` and [1-9][0-9]* lanes, more than`, err.Error())
		} else {
			require.Contains(t, err.Error(), " and 0 lanes, more than")
		}
		// The reader's blocks and buffers, and the state up to the first
		// check past the limit: a few MiB, not the spans' tens.
		alloc := after.TotalAlloc - before.TotalAlloc
		require.Less(t, alloc, uint64(8<<20), "%s: Stats allocated %d MiB at a 1 MiB budget", tc.name, alloc>>20)

		enough, err := mmapio.Open(path)
		require.NoError(t, err)
		rep, err := Stats(enough, mmapio.Query{})
		require.NoError(t, enough.Close())
		require.NoError(t, err, tc.name)
		require.Equal(t, uint64(tc.n), rep.Notes["spans_open_at_end"], tc.name)
		lanes := 0
		for _, o := range rep.Occupancy {
			if o.Lane != "" {
				lanes++
			}
		}
		require.Equal(t, tc.wantOpenLane, lanes, tc.name)
	}
}

// With a cycle window A-B, the events before A are read to find the spans
// open at A (lookback.go): the begin cycles kept then count as those of
// the window do. 100,000 spans begun on one lane and never ended, read
// with a window of their last 10 cycles, stop in the lookback at a 1 MiB
// budget; a budget that holds them starts them all at A.
func TestStatsWindowLookbackKeepsOpenSpansInTheBudget(t *testing.T) {
	const n = 100_000 // 800 KB of begin cycles: past a quarter of 1 MiB
	path := filepath.Join(t.TempDir(), "lane0.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	for i := range n {
		heldSpan.Begin(u, uint64(i), 0, 0)
	}
	require.NoError(t, tr.Close())
	q := mmapio.Query{}.WithCycles(n-10, n-1)

	small, err := mmapio.Open(path, mmapio.WithMemoryBudget(1<<20))
	require.NoError(t, err)
	_, err = Stats(small, q)
	require.NoError(t, small.Close())
	require.Error(t, err)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "quarter of the memory budget (1 MiB)")
	require.Regexp(t, `: at cycle [1-9][0-9]* the statistics hold`, err.Error())

	enough, err := mmapio.Open(path)
	require.NoError(t, err)
	rep, err := Stats(enough, q)
	require.NoError(t, enough.Close())
	require.NoError(t, err)
	require.Equal(t, uint64(n), rep.Notes["spans_open_at_end"])
}
