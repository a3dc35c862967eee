package chronon_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Categories of the formats the mask-race test toggles, and one it never
// enables: bits no other test of the package uses (gate_test.go keeps
// 40-43 for gate slots of its own; the internal tests use 44-55 and 60).
const (
	mrA     = 1 << 56
	mrB     = 1 << 57
	mrC     = 1 << 58
	mrNever = 1 << 59
)

var (
	mrPairA = chronon.MustFormat2[uint64, uint64]("mr a key={} inv={}", chronon.WithCategory(mrA))
	mrPairB = chronon.MustFormat2[uint64, uint64]("mr b key={} inv={}", chronon.WithCategory(mrB))
	mrTextC = chronon.MustFormat2[uint64, string]("mr c key={} text={}", chronon.WithCategory(mrC))
	mrNone  = chronon.MustFormat2[uint64, uint64]("mr never key={} inv={}", chronon.WithCategory(mrNever))
)

// Several goroutines emit into one shared unit while another rewrites its
// mask (SetMask, Enable, Disable) and flushes it, under both policies,
// with a record-time window: whatever the interleaving, the unit's counts
// add up (Emitted = Written + Dropped, nothing Lost), the file holds
// exactly Written events, every one whole, in its goroutine's order,
// inside the window and of a category the toggler enabled at some point;
// emits after Close are counted as dropped. Run with -race.
func TestSharedUnitMaskRaceCountsAddUp(t *testing.T) {
	for _, policy := range []chronon.Policy{chronon.Block, chronon.Drop} {
		t.Run(fmt.Sprint("policy=", policy), func(t *testing.T) { sharedMaskRace(t, policy) })
	}
}

func sharedMaskRace(t *testing.T, policy chronon.Policy) {
	const goroutines = 4
	perG := uint64(20000)
	if raceEnabled {
		perG = 4000
	}
	const lo = 50 // the window: cycles 50 and later
	tr, path := create(t, chronon.WithBlockSize(4096), chronon.WithRingSize(8192), chronon.WithPolicy(policy),
		chronon.WithFlushInterval(time.Millisecond), chronon.WithSelect("cycles="+strconv.Itoa(lo)+"-"))
	u, err := tr.NewUnit("mr", chronon.WithShared())
	require.NoError(t, err)
	u.SetMask(mrA | mrB | mrC)

	var stop atomic.Bool
	var wg, tw sync.WaitGroup
	tw.Add(1)
	go func() { // the toggler
		defer tw.Done()
		r := rand.New(rand.NewPCG(3, 4))
		bits := []uint64{mrA, mrB, mrC}
		for !stop.Load() {
			i, j := r.IntN(len(bits)), r.IntN(len(bits)) // one or two categories
			b := bits[i] | bits[j]
			switch r.IntN(4) {
			case 0:
				u.SetMask(b)
			case 1:
				u.Enable(b)
			case 2:
				u.Disable(b)
			case 3:
				u.Flush()
			}
		}
	}()
	for g := uint64(0); g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint64(0); seq < perG; seq++ {
				key := g<<32 | seq
				switch seq % 4 {
				case 0:
					mrPairA.Emit(u, seq, key, ^key)
				case 1:
					mrPairB.Emit(u, seq, key, ^key)
				case 2:
					mrTextC.Emit(u, seq, key, strconv.FormatUint(key, 10))
				case 3:
					mrNone.Emit(u, seq, key, ^key)
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	tw.Wait()
	u.SetMask(mrA | mrB | mrC) // the emits after Close pass the mask, whatever the toggler left
	// The race may record nothing: a toggler that emptied the mask and then
	// did not run while the emitters did (a loaded host) leaves every event
	// rejected. So each goroutine's last event comes now, the mask set and
	// the ring emptied (Flush waits for the writer; no emit is in flight):
	// these are written under either policy. Their seq (perG, a multiple of
	// 4) is past all the goroutine's others, and of format A.
	require.NoError(t, tr.Flush())
	for g := uint64(0); g < goroutines; g++ {
		key := g<<32 | perG
		mrPairA.Emit(u, perG, key, ^key)
	}
	require.NoError(t, tr.Close())
	mrPairA.Emit(u, 1000, 0, 0) // after Close: dropped and counted
	mrTextC.Emit(u, 1001, 0, "late")

	st := tr.Stats().Units[0]
	t.Logf("%+v", st)
	require.Equal(t, "mr", st.Name)
	require.Zero(t, st.Lost)
	require.Equal(t, st.Emitted, st.Written+st.Dropped, "emitted = written + dropped: %+v", st)
	require.GreaterOrEqual(t, st.Dropped, uint64(2), "the emits after Close")
	if policy == chronon.Block {
		require.Equal(t, uint64(2), st.Dropped, "Block loses nothing but the emits after Close")
	}
	require.GreaterOrEqual(t, st.Written, uint64(goroutines), "the events after the race, mask set and ring flushed: %+v", st)

	f := readBack(t, path)
	require.Len(t, f.events, int(st.Written), "events in the file")
	last := make([]int64, goroutines)
	for i := range last {
		last[i] = -1
	}
	for _, e := range f.events {
		a := []byte(e.args)
		require.GreaterOrEqual(t, len(a), 8)
		key := binary.LittleEndian.Uint64(a)
		g, seq := key>>32, key&0xffffffff
		require.Less(t, g, uint64(goroutines))
		require.Equal(t, seq, e.rec.Cycle)
		require.GreaterOrEqual(t, seq, uint64(lo), "event outside the window")
		switch seq % 4 {
		case 0, 1:
			require.Len(t, a, 16)
			require.Equal(t, ^key, binary.LittleEndian.Uint64(a[8:]), "torn event %x", key)
		case 2:
			require.Equal(t, strconv.FormatUint(key, 10)+"\x00", string(a[8:]), "torn event %x", key)
		case 3:
			t.Fatalf("event %x of a category never enabled", key)
		}
		require.Greater(t, int64(seq), last[g], "goroutine %d out of order", g)
		last[g] = int64(seq)
	}
	oracleCheck(t, path)
}
