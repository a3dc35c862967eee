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

// The fast word vouches for a format only where the gate alone decides: an
// enabled slot, gates computed, a window without end. A disabled category
// (even at cycle MaxUint64, which passes its MaxUint64 gate), a window's
// end, a format with strings and a slot registered after the unit all take
// the checked path, and the late slot leaves it after its first event.
func TestFastWordVouchesOnlyForExactGates(t *testing.T) {
	tr, err := Create(t.TempDir()+"/fast.ctrace", WithAutoMetadata(false), WithFlushInterval(0))
	require.NoError(t, err)
	on := MustFormat1[uint32]("fast on {}", WithCategory(1<<50))
	off := MustFormat1[uint32]("fast off {}", WithCategory(1<<51))
	str := MustFormat1[string]("fast str {}", WithCategory(1<<50))
	u, err := tr.NewUnit("u", WithUnitMask(1<<50))
	require.NoError(t, err)
	fast := func() uint64 { return atomic.LoadUint64(&u.fast) }
	require.NotZero(t, fast()&on.fastBit, "enabled fixed-size format")
	require.Zero(t, fast()&off.fastBit, "disabled format")
	require.Zero(t, str.fastBit, "format with strings")

	off.Emit(u, math.MaxUint64, 1) // through the gate, rejected by the checked path
	require.Zero(t, u.off, "an event of a disabled category was written")
	on.Emit(u, 5, 1)
	require.EqualValues(t, on.size, u.off)

	u.Disable(1 << 50)
	require.Zero(t, fast()&on.fastBit, "Disable clears the bit")
	on.Emit(u, math.MaxUint64, 2)
	require.EqualValues(t, on.size, u.off, "disabled by Disable, yet written")
	u.Enable(1<<50 | 1<<51)
	require.NotZero(t, fast()&on.fastBit)
	require.NotZero(t, fast()&off.fastBit)

	late := MustFormat1[uint32]("fast late {}", WithCategory(1<<52))
	require.NotZero(t, late.fastBit)
	u.Enable(0) // unchanged mask: the late slot stays uncomputed
	u.SetMask(u.Mask() | 1<<52)
	require.NotZero(t, fast()&late.fastBit, "SetMask computes every slot")
	require.NoError(t, tr.Close())

	// A slot assigned after the unit's gates: its first event takes the
	// checked path and computes them.
	tr, err = Create(t.TempDir()+"/fast2.ctrace", WithAutoMetadata(false), WithFlushInterval(0))
	require.NoError(t, err)
	v, err := tr.NewUnit("v")
	require.NoError(t, err)
	later := MustFormat1[uint32]("fast later {}", WithCategory(1<<53))
	require.Zero(t, atomic.LoadUint64(&v.fast)&later.fastBit)
	later.Emit(v, 1, 1)
	require.EqualValues(t, later.size, v.off)
	require.NotZero(t, atomic.LoadUint64(&v.fast)&later.fastBit, "computed by the first event")
	require.NoError(t, tr.Close())

	// A window with an end: nothing is vouched for; past the end is dropped.
	tr, err = Create(t.TempDir()+"/fast3.ctrace", WithAutoMetadata(false), WithSelect("cycles=10-20"))
	require.NoError(t, err)
	w, err := tr.NewUnit("w")
	require.NoError(t, err)
	require.Zero(t, atomic.LoadUint64(&w.fast))
	on.Emit(w, 30, 1)
	require.Zero(t, w.off, "an event past the window's end was written")
	on.Emit(w, 15, 1)
	require.EqualValues(t, on.size, w.off)
	require.NoError(t, tr.Close())

	// An open-ended window (cycles=10-): vouched for from its start.
	tr, err = Create(t.TempDir()+"/fast4.ctrace", WithAutoMetadata(false), WithSelect("cycles=10-"))
	require.NoError(t, err)
	x, err := tr.NewUnit("x")
	require.NoError(t, err)
	require.NotZero(t, atomic.LoadUint64(&x.fast)&on.fastBit)
	on.Emit(x, 5, 1)
	require.Zero(t, x.off, "an event before the window was written")
	on.Emit(x, math.MaxUint64, 1)
	require.EqualValues(t, on.size, x.off)
	require.NoError(t, tr.Close())
}
