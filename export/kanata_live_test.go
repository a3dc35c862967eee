package export

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// inFlightTrace writes a trace in which n instructions are all in flight
// at cycle n: each is fetched at cycle i, executes at n+i and retires at
// 2n+i.
func inFlightTrace(t testing.TB, n int) string {
	path := filepath.Join(t.TempDir(), "inflight.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("cpu0")
	require.NoError(t, err)
	insts := make([]chronon.Inst, n)
	for i := range insts {
		insts[i] = kmStages.Start(uint64(i))
		kmStages.Enter(u, uint64(i), &insts[i], 0)
	}
	for i := range insts {
		kmStages.Enter(u, uint64(n+i), &insts[i], 1)
	}
	for i := range insts {
		kmStages.Retire(u, uint64(2*n+i), &insts[i])
	}
	require.NoError(t, tr.Close())
	return path
}

// Issue 21 item 7: the Kanata export reports what it keeps live beyond
// the reader's budget (WithLiveState), so that trace_reader raises its
// soft memory limit by it: with 3M instructions in flight the collector
// thrashed under a limit of the budget alone. The report follows the
// instructions in flight up (at least n of them) and down (0 at the end),
// a few dozen calls, not one per instruction.
func TestKanataLiveStateReported(t *testing.T) {
	const n = 50_000
	path := inFlightTrace(t, n)
	var calls []int64
	res, _ := exportFile(t, path, mmapio.Query{}, WithFormat(FormatKanata), WithLiveState(func(b int64) { calls = append(calls, b) }))
	require.Equal(t, uint64(n), res.Instructions)
	require.Equal(t, uint64(n), res.Retired)
	require.NotEmpty(t, calls)
	require.Positive(t, calls[0], "the per-flow counts, from the start")
	require.Equal(t, int64(0), calls[len(calls)-1], "nothing kept once the export ends")
	peak := int64(0)
	for _, b := range calls {
		peak = max(peak, b)
	}
	require.GreaterOrEqual(t, peak, int64(n)*kInstBytes*7/8, "the instructions in flight at the peak are counted")
	require.Less(t, len(calls), 200, "reported when it changes by an eighth, not per instruction")

	_, err := Export(nil, mmapio.Query{}, "x", WithLiveState(nil))
	require.ErrorContains(t, err, "nil live state function")
}
