package chronon

import (
	"math"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A foreign unit's mask lives in its ring's control block, where its C
// producer reads it: SetMask, Enable and Disable change that copy and leave
// the Go gates closed (the Go mask stays 0), so an Emit from Go on the unit
// records nothing, as before gates.
func TestGateForeignUnit(t *testing.T) {
	tr, err := Create(t.TempDir()+"/f.ctrace", WithAutoMetadata(false), WithSelect("cycles=10-20"))
	require.NoError(t, err)
	u, _, err := tr.newForeignUnit("c")
	require.NoError(t, err)
	f := MustFormat1[uint32]("gate foreign {}", WithCategory(1<<44))
	u.SetMask(1 << 44)
	u.Enable(1 << 45)
	u.Disable(1 << 45)
	require.Equal(t, uint64(1<<44), u.ring.hdr.mask, "control block mask")
	require.Equal(t, uint64(1<<44), u.Mask())
	require.Zero(t, atomic.LoadUint64(&u.mask), "Go mask of a foreign unit")
	f.Emit(u, 15, 1) // the slot may be newer than the unit's gates: computed on this rejection
	require.Equal(t, uint64(math.MaxUint64), atomic.LoadUint64(&u.gate[f.slot]), "gate")
	require.False(t, u.hasChunk, "a Go emit on a foreign unit wrote")
	require.Zero(t, u.off)
	require.NoError(t, tr.Close())
	require.NoError(t, tr.free())
}

// Slot 0 belongs to no format: a FormatN that was never registered (its
// zero value) has slot 0 and gate offset 0, which is gate[0] (Unit.gate
// comes first) and stays MaxUint64, so its Emit records nothing, as the
// mask test with its zero category did. At cycle MaxUint64 the gate lets it
// through to the out-of-line path, which rejects it by its zero category:
// no arity panics there (5 and 6 arguments once called a func value that
// registration set).
func TestGateZeroFormat(t *testing.T) {
	tr, err := Create(t.TempDir()+"/z.ctrace", WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	u.SetMask(math.MaxUint64)
	var f Format1[uint32]
	for c := uint64(0); c < 1000; c++ {
		f.Emit(u, c, 1)
	}
	var f0 Format0
	var f5 Format5[uint8, uint8, uint8, uint8, uint8]
	var f6 Format6[uint8, uint8, uint8, uint8, uint8, uint8]
	var f8 Format8[uint8, uint8, uint8, uint8, uint8, uint8, uint8, uint8]
	for _, c := range []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64} {
		f.Emit(u, c, 1)
		f0.Emit(u, c)
		f5.Emit(u, c, 1, 2, 3, 4, 5)
		f6.Emit(u, c, 1, 2, 3, 4, 5, 6)
		f8.Emit(u, c, 1, 2, 3, 4, 5, 6, 7, 8)
	}
	require.EqualValues(t, 5, u.rejectedOOL, "cycle MaxUint64 reaches the out-of-line path, which rejects")
	require.Equal(t, uint64(math.MaxUint64), atomic.LoadUint64(&u.gate[0]))
	require.False(t, u.hasChunk)
	require.NoError(t, tr.Close())
}
