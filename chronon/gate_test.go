package chronon_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// The gate tests (gate.go) use category bits no other test uses, so that
// their masks get gate slots of their own.
const (
	gA = 1 << 40
	gB = 1 << 41
	gC = 1 << 42
	gD = 1 << 43
)

// Formats registered at package initialization, before any test runs and
// registers masks of its own: they have gate slots, never the overflow one.
var (
	gateA   = chronon.MustFormat1[uint32]("gate a {}", chronon.WithCategory(gA))
	gateB   = chronon.MustFormat1[uint32]("gate b {}", chronon.WithCategory(gB))
	gateAB  = chronon.MustFormat1[uint32]("gate ab {}", chronon.WithCategory(gA|gB)) // a multi-bit mask
	gateC   = chronon.MustFormat1[uint32]("gate c {}", chronon.WithCategory(gC))
	gateA2  = chronon.MustFormat1[uint32]("gate a2 {}", chronon.WithCategory(gA)) // shares gateA's slot
	gateAll = []*chronon.Format1[uint32]{gateA, gateB, gateAB, gateC, gateA2}
)

// lateMasks hands out a category mask no format has yet, for formats
// registered after a unit exists (one per test run, -count included).
var lateMasks atomic.Uint64

func lateMask() uint64 { return 1<<50 | lateMasks.Add(1)<<51 }

func gateEv(u *chronon.Unit, f *chronon.Format1[uint32], cycle uint64, arg uint32) rbEvent {
	return ev(cycle, f.ID(), uint32(f.Category()), u, 1, le32(arg))
}

// The gate of a slot is the window's first cycle when the unit enables the
// slot's mask, MaxUint64 when it does not; formats with the same mask share
// a slot. Events before the window and of disabled categories never reach
// the out-of-line path: that is what makes them cost what a disabled event
// does (BenchmarkEmitWindow/before); events past the window do reach it.
// An event that reaches the out-of-line path is either recorded or counted
// by RejectedOutOfLine, so an event neither recorded nor counted was
// stopped by its gate at the call site.
func TestGateRejectsAtTheCallSite(t *testing.T) {
	tr, path := create(t, chronon.WithSelect("cycles=100-200"))
	u, err := tr.NewUnit("g", chronon.WithUnitMask(gA|gC))
	require.NoError(t, err)
	for _, f := range gateAll {
		slot, gate := chronon.GateOf(u, f)
		require.NotEqual(t, uint8(chronon.OverflowSlot), slot, "%s", f.Text())
		want := uint64(math.MaxUint64)
		if f.Category()&(gA|gC) != 0 {
			want = 100
		}
		require.Equal(t, want, gate, "%s", f.Text())
	}
	sa, _ := chronon.GateOf(u, gateA)
	sa2, _ := chronon.GateOf(u, gateA2)
	require.Equal(t, sa, sa2, "same mask, same slot")

	f := chronon.MustFormat6[uint32, uint8, uint8, uint8, uint8, uint8]("gate counted {} {} {} {} {} {}", chronon.WithCategory(gA))
	fev := func(c uint64, arg uint32) rbEvent {
		return ev(c, f.ID(), uint32(f.Category()), u, 6, cat(le32(arg), []byte{1, 2, 3, 4, 5}))
	}
	rejected := func() uint64 { return chronon.RejectedOutOfLine(u) }
	for c := uint64(0); c < 100; c++ {
		f.Emit(u, c, 1, 1, 2, 3, 4, 5) // before the window
		gateB.Emit(u, c, 1)            // disabled
		gateB.Emit(u, 150, 1)          // disabled, inside the window
	}
	require.Zero(t, rejected(), "events before the window or disabled went out of line")
	f.Emit(u, 100, 2, 1, 2, 3, 4, 5) // recorded
	f.Emit(u, 200, 3, 1, 2, 3, 4, 5) // recorded
	require.Zero(t, rejected())
	f.Emit(u, 201, 4, 1, 2, 3, 4, 5) // past the window: out of line, rejected there
	f.Emit(u, math.MaxUint64, 5, 1, 2, 3, 4, 5)
	require.EqualValues(t, 2, rejected())
	u.Disable(gA)
	f.Emit(u, 150, 6, 1, 2, 3, 4, 5)
	require.EqualValues(t, 2, rejected(), "Disable did not close the gate")
	u.Enable(gA)
	f.Emit(u, 150, 7, 1, 2, 3, 4, 5) // recorded
	require.EqualValues(t, 2, rejected())
	require.NoError(t, tr.Close())
	require.Equal(t, []rbEvent{fev(100, 2), fev(200, 3), fev(150, 7)}, readBack(t, path).events)
}

// A window starting at cycle 0 gates nothing by cycle: gate 0, as without
// a window, and every cycle goes out of line where the window's end is
// checked. Cycle MaxUint64 is recorded when the window reaches it and not
// when it ends before, whatever the gate.
func TestGateWindowFromZero(t *testing.T) {
	for _, tc := range []struct {
		sel  string
		want []uint64
	}{
		{"cycles=0-10", []uint64{0, 10}},
		{"cycles=0-", []uint64{0, 10, 11, math.MaxUint64 - 1, math.MaxUint64}},
		{"", []uint64{0, 10, 11, math.MaxUint64 - 1, math.MaxUint64}},
		{"cycles=11-", []uint64{11, math.MaxUint64 - 1, math.MaxUint64}},
		{"cycles=11-18446744073709551614", []uint64{11, math.MaxUint64 - 1}},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			tr, path := create(t, chronon.WithSelect(tc.sel))
			u, err := tr.NewUnit("g")
			require.NoError(t, err)
			off, err := tr.NewUnit("off", chronon.WithUnitMask(gB))
			require.NoError(t, err)
			_, gate := chronon.GateOf(u, gateA)
			if tc.want[0] == 0 {
				require.Zero(t, gate)
			}
			var want []rbEvent
			for _, c := range []uint64{0, 10, 11, math.MaxUint64 - 1, math.MaxUint64} {
				gateA.Emit(u, c, 1)
				gateA.Emit(off, c, 2) // disabled, MaxUint64 included
			}
			for _, c := range tc.want {
				want = append(want, gateEv(u, gateA, c, 1))
			}
			require.NoError(t, tr.Close())
			require.Equal(t, want, readBack(t, path).events)
		})
	}
}

// A format registered after the unit exists has a slot whose gate the unit
// has not computed: 0, every event goes out of line, where the first one
// rejected computes the gate. Disabled stays disabled, enabled stays
// enabled, before and after SetMask.
func TestGateFormatRegisteredAfterUnit(t *testing.T) {
	tr, path := create(t, chronon.WithSelect("cycles=100-200"))
	u, err := tr.NewUnit("g") // default mask: everything
	require.NoError(t, err)
	m := lateMask()
	u.Disable(m)
	late := chronon.MustFormat1[uint32]("gate late {}", chronon.WithCategory(m))
	late2 := chronon.MustFormat1[uint32]("gate late2 {}", chronon.WithCategory(m|gD)) // enabled through gD
	slot, gate := chronon.GateOf(u, late)
	require.Zero(t, gate, "a slot newer than the unit's gates")

	var want []rbEvent
	late.Emit(u, 150, 1) // disabled: rejected out of line, which computes the gate
	late2.Emit(u, 150, 2)
	want = append(want, gateEv(u, late2, 150, 2))
	_, gate = chronon.GateOf(u, late)
	if slot == chronon.OverflowSlot { // many -count runs used every slot
		require.Zero(t, gate)
	} else {
		require.Equal(t, uint64(math.MaxUint64), gate, "disabled mask's gate")
		late2.Emit(u, 50, 3) // before the window: rejected, which computes late2's gate
		_, gate2 := chronon.GateOf(u, late2)
		require.Equal(t, uint64(100), gate2, "enabled mask's gate")
	}
	u.Enable(m)
	late.Emit(u, 160, 4)
	want = append(want, gateEv(u, late, 160, 4))
	u.SetMask(gA)
	late.Emit(u, 170, 5)
	late2.Emit(u, 170, 6)
	gateA.Emit(u, 170, 7)
	want = append(want, gateEv(u, gateA, 170, 7))
	require.NoError(t, tr.Close())
	require.Equal(t, want, readBack(t, path).events)
}

// More distinct category masks than gate slots: the masks beyond share the
// overflow slot, whose gate is 0, and are checked out of line only, so
// their events are recorded exactly as the others.
func TestGateOverflowSlots(t *testing.T) {
	tr, path := create(t, chronon.WithSelect("cycles=100-200"))
	u, err := tr.NewUnit("g", chronon.WithUnitMask(1<<45))
	require.NoError(t, err)
	var fs []*chronon.Format1[uint32]
	overflow := 0
	for i := uint64(1); overflow < 8; i++ {
		require.Less(t, i, uint64(200), "no overflow slot after 200 masks")
		m := i<<46 | (i&1)<<45 // odd i: enabled through bit 45
		f := chronon.MustFormat1[uint32]("gate many {}", chronon.WithCategory(m))
		if slot, gate := chronon.GateOf(u, f); slot == chronon.OverflowSlot {
			overflow++
			require.Zero(t, gate, "overflow slot's gate")
		}
		fs = append(fs, f)
	}
	var want []rbEvent
	emit := func(mask uint64, arg uint32) {
		for _, f := range fs {
			for _, c := range []uint64{0, 99, 100, 150, 200, 201, math.MaxUint64} {
				f.Emit(u, c, arg)
				if f.Category()&mask != 0 && c >= 100 && c <= 200 {
					want = append(want, gateEv(u, f, c, arg))
				}
			}
		}
	}
	emit(1<<45, 1)
	u.SetMask(1<<47 | 1<<48) // i with bit 1 or bit 2 set
	emit(1<<47|1<<48, 2)
	u.Disable(1 << 47)
	emit(1<<48, 3)
	require.NoError(t, tr.Close())
	got := readBack(t, path).events
	require.Len(t, got, len(want))
	require.Equal(t, want, got)
}

// SetMask, Enable and Disable from another goroutine while the owner emits:
// once the call has returned, the owner's next emit follows the new mask,
// whatever the emits racing with the call did to the gates, including the
// lazy computation of slots registered meanwhile. Run with -race.
func TestGateSetMaskFromAnotherGoroutine(t *testing.T) {
	tr, path := create(t, chronon.WithSelect("cycles=1000-"), chronon.WithBlockSize(4096))
	u, err := tr.NewUnit("g", chronon.WithUnitMask(0))
	require.NoError(t, err)
	rounds := 2000
	if raceEnabled {
		rounds = 400
	}
	type round struct {
		n    uint32
		mask uint64
		late *chronon.Format1[uint32] // registered after the unit, or nil
	}
	next, ack := make(chan round), make(chan struct{})
	var want []rbEvent
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the owner: emits noise (argument 0) while the mask changes, checks on each round
		defer wg.Done()
		fs := append([]*chronon.Format1[uint32](nil), gateAll...)
		noise := uint64(1000)
		for {
			var r round
			var ok bool
			select {
			case r, ok = <-next:
			default:
				for _, f := range fs {
					f.Emit(u, noise, 0)
					f.Emit(u, 500, 0) // before the window
				}
				noise++
				continue
			}
			if !ok {
				return
			}
			if r.late != nil {
				fs = append(fs, r.late)
			}
			for _, f := range fs {
				c := 1_000_000 + uint64(r.n)
				f.Emit(u, 999, r.n)            // before the window: never
				f.Emit(u, c, r.n)              // in it: when enabled
				f.Emit(u, math.MaxUint64, r.n) // the last cycle, in the window "1000-"
				if f.Category()&r.mask != 0 {
					want = append(want, gateEv(u, f, c, r.n), gateEv(u, f, math.MaxUint64, r.n))
				}
			}
			ack <- struct{}{}
		}
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	bits := []uint64{gA, gB, gC, gD, 1 << 50}
	var mask uint64
	lates := 0
	for n := uint32(1); n <= uint32(rounds); n++ {
		i, j := rng.IntN(len(bits)), rng.IntN(len(bits)) // one or two categories
		x := bits[i] | bits[j]
		switch rng.IntN(3) {
		case 0:
			mask = x
			u.SetMask(x)
		case 1:
			mask |= x
			u.Enable(x)
		case 2:
			mask &^= x
			u.Disable(x)
		}
		require.Equal(t, mask, u.Mask())
		r := round{n: n, mask: mask}
		if n%(uint32(rounds)/8) == 0 && lates < 6 { // a new slot, its gates computed lazily under the racing emits
			r.late = chronon.MustFormat1[uint32]("gate race late {}", chronon.WithCategory(lateMask()|bits[lates%len(bits)]))
			lates++
		}
		next <- r
		<-ack
	}
	close(next)
	wg.Wait()
	require.NoError(t, tr.Close())
	var got []rbEvent
	for _, e := range readBack(t, path).events {
		if e.args != string(le32(0)) { // the checks; noise is whatever the races made of it
			got = append(got, e)
		}
	}
	require.Equal(t, len(want), len(got))
	require.Equal(t, want, got)
}
