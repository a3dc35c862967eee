package export

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// psTrace writes a picosecond trace: instants at the cycles given, and one
// async span from begin to end, on one unit.
func psTrace(t *testing.T, instants []uint64, begin, end uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ps.ctrace")
	tr, err := chronon.Create(path, chronon.WithTimeBase(chronon.Picoseconds), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("gpu.l2")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("tsround n={}")
	sp := chronon.MustAsyncSpan("tsround_task")
	sp.Begin(u, begin, 7, 0)
	for i, c := range instants {
		f.Emit(u, c, uint64(i))
	}
	sp.End(u, end, 7)
	require.NoError(t, tr.Close())
	return path
}

// Akita finding: a picosecond trace of 1 GHz clocks (every time a whole
// nanosecond) drew a warning that the viewers' whole nanoseconds merge
// cycles. The export now counts the timestamps it actually rounds: none
// there, each one between two nanoseconds otherwise.
func TestExportCountsRoundedTimestamps(t *testing.T) {
	whole := psTrace(t, []uint64{0, 1000, 2000, 5_000_000}, 1000, 9000)
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		res, _ := exportFile(t, whole, mmapio.Query{}, WithFormat(format))
		require.Equal(t, uint64(0), res.RoundedTimestamps, format)
	}
	// 1500 and 2001 ps are between nanoseconds, and so is the span's begin.
	mixed := psTrace(t, []uint64{0, 1500, 2000, 2001, 3000}, 500, 9000)
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		res, _ := exportFile(t, mixed, mmapio.Query{}, WithFormat(format))
		require.Equal(t, uint64(3), res.RoundedTimestamps, format)
	}
	// An ns-per-cycle that is not whole rounds the odd cycles: 0 and 1000
	// are whole (0, 2500 ns), the span's 500 and 9000 too (1250, 22500);
	// 1500 (3750) whole, 2001 (5002.5) not.
	res, _ := exportFile(t, mixed, mmapio.Query{}, WithNsPerCycle(2.5))
	require.Equal(t, uint64(1), res.RoundedTimestamps)
	// A whole ns per cycle never rounds.
	res, _ = exportFile(t, mixed, mmapio.Query{}, WithNsPerCycle(1))
	require.Equal(t, uint64(0), res.RoundedTimestamps)
}

// A unit's own clock rounds alone: at 3 GHz, cycles 3 and 6 are whole
// nanoseconds, 1 and 4 are not; the unit without a clock keeps cycles.
func TestExportCountsRoundedTimestampsPerUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clk.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	fast, err := tr.NewUnit("fast")
	require.NoError(t, err)
	require.NoError(t, fast.SetTimeBase(chronon.Hz(3_000_000_000)))
	plain, err := tr.NewUnit("plain")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("tsclock n={}")
	for _, c := range []uint64{1, 3, 4, 6} {
		f.Emit(fast, c, c)
		f.Emit(plain, c, c)
	}
	require.NoError(t, tr.Close())
	res, _ := exportFile(t, path, mmapio.Query{})
	require.Equal(t, uint64(2), res.RoundedTimestamps)
}
