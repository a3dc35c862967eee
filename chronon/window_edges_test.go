package chronon_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

var (
	weFixed = chronon.MustFormat2[uint64, bool]("window edge fixed {} {}")
	weText  = chronon.MustFormat1[string]("window edge text {}")
	weZero  = chronon.MustFormat0("window edge none")
)

// Windows of one cycle, at the top of the cycle range and one short of
// it: every emit path (fixed-size and string formats, no arguments, an
// owned unit and a shared one) keeps exactly the cycles inside, the cycles
// either side of each edge are rejected, and the counts add up.
func TestWindowEdgesEveryPath(t *testing.T) {
	const top = math.MaxUint64
	for _, tc := range []struct {
		lo, hi uint64
	}{{0, 0}, {10, 10}, {top, top}, {top - 1, top - 1}, {top - 1, top}, {1, top - 1}} {
		for _, shared := range []bool{false, true} {
			sel := fmt.Sprintf("cycles=%d-%d", tc.lo, tc.hi)
			t.Run(fmt.Sprintf("%s/shared=%v", sel, shared), func(t *testing.T) {
				tr, path := create(t, chronon.WithSelect(sel))
				var opts []chronon.UnitOption
				if shared {
					opts = append(opts, chronon.WithShared())
				}
				u, err := tr.NewUnit("we", opts...)
				require.NoError(t, err)
				// Every edge of every window above and the cycles either side.
				cycles := []uint64{0, 1, 2, 9, 10, 11, top - 2, top - 1, top}
				var want uint64
				for _, c := range cycles {
					weFixed.Emit(u, c, c, true)
					weText.Emit(u, c, "edge")
					weZero.Emit(u, c)
					if c >= tc.lo && c <= tc.hi {
						want += 3
					}
				}
				require.NoError(t, tr.Close())
				st := tr.Stats().Units[0]
				require.Equal(t, want, st.Emitted, "%+v", st)
				require.Equal(t, want, st.Written)
				require.Zero(t, st.Dropped)
				evs := readBack(t, path).events
				require.Len(t, evs, int(want))
				for _, e := range evs {
					require.True(t, e.rec.Cycle >= tc.lo && e.rec.Cycle <= tc.hi, "cycle %d outside %s", e.rec.Cycle, sel)
				}
			})
		}
	}
}

// A FormatN that was never registered (its zero value) records nothing on
// a shared unit either, at every cycle, cycle MaxUint64 included (the one
// its gate lets through to the out-of-line path, which on a shared unit
// takes the lock and checks there), and the unit's counts stay zero.
func TestZeroFormatOnSharedUnit(t *testing.T) {
	tr, path := create(t)
	u, err := tr.NewUnit("zs", chronon.WithShared(), chronon.WithUnitMask(math.MaxUint64))
	require.NoError(t, err)
	var f0 chronon.Format0
	var f2 chronon.Format2[uint64, bool]
	var fs chronon.Format1[string]
	for _, c := range []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64} {
		f0.Emit(u, c)
		f2.Emit(u, c, c, true)
		fs.Emit(u, c, "zero")
	}
	weFixed.Emit(u, 5, 5, false) // a registered format still records
	require.NoError(t, tr.Close())
	st := tr.Stats().Units[0]
	require.Equal(t, uint64(1), st.Emitted, "%+v", st)
	require.Equal(t, uint64(1), st.Written)
	evs := readBack(t, path).events
	require.Len(t, evs, 1)
	require.Equal(t, uint64(5), evs[0].rec.Cycle)
}
