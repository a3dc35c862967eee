package chronon_test

import (
	"encoding/binary"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// The formats TestSharedUnitManyGoroutines emits: each event carries a key
// (goroutine << 32 | sequence number) and a second copy of it (inverted, or
// as text), so a torn event, one whose bytes two goroutines wrote, shows.
var (
	sharedPair    = chronon.MustFormat2[uint64, uint64]("shared key={} inv={}")
	sharedText    = chronon.MustFormat2[uint64, string]("shared key={} text={}")
	sharedTask    = chronon.MustAsyncSpan("shared task")
	sharedCounter = chronon.MustCounter("shared counter")
)

// sharedEmit emits event seq of goroutine g (one of five kinds, in turn).
func sharedEmit(u *chronon.Unit, g, seq uint64) {
	key := g<<32 | seq
	switch seq % 5 {
	case 0:
		sharedPair.Emit(u, seq, key, ^key)
	case 1:
		sharedText.Emit(u, seq, key, strconv.FormatUint(key, 10))
	case 2:
		sharedTask.Begin(u, seq, key, ^key)
	case 3:
		sharedTask.End(u, seq, key)
	case 4:
		sharedCounter.Sample(u, seq, int64(key))
	}
}

// sharedKey checks an event written by sharedEmit whole and returns its key.
func sharedKey(t *testing.T, e rbEvent) uint64 {
	t.Helper()
	a := []byte(e.args)
	require.GreaterOrEqual(t, len(a), 8, "event %s", e.key())
	key := binary.LittleEndian.Uint64(a)
	seq := key & 0xffffffff
	require.Equal(t, seq, e.rec.Cycle, "cycle of %x", key)
	switch seq % 5 {
	case 0, 2: // pair, async begin (id, parent)
		require.Len(t, a, 16)
		require.Equal(t, ^key, binary.LittleEndian.Uint64(a[8:]), "torn event %x", key)
	case 1:
		require.Equal(t, strconv.FormatUint(key, 10)+"\x00", string(a[8:]), "torn event %x", key)
	case 3, 4: // async end, counter
		require.Len(t, a, 8)
	}
	return key
}

// Many goroutines emit into one shared unit through every kind of call
// (fixed-size and string formats, async spans, counters), with small
// chunks and a small ring so that seals, waits for the writer, periodic
// flush requests and Unit.Flush from the emitting goroutines all happen
// while others emit. Every event must come back whole, each goroutine's in
// the order it emitted them; the race detector must stay quiet.
func TestSharedUnitManyGoroutines(t *testing.T) {
	const goroutines = 8
	perG := uint64(6000)
	if raceEnabled {
		// 2,000 events per goroutine still take every path the test is
		// about (seals of 4 KiB blocks, waits for the writer on an 8 KiB
		// ring, Unit.Flush from emitting goroutines, periodic flushes) many
		// times over; make test runs 6,000 without the race detector.
		perG = 2000
	}
	tr, path := create(t, chronon.WithBlockSize(4096), chronon.WithRingSize(8192), chronon.WithFlushInterval(time.Millisecond))
	u, err := tr.NewUnit("shared", chronon.WithShared())
	require.NoError(t, err)
	require.True(t, u.Shared())
	other, err := tr.NewUnit("other")
	require.NoError(t, err)
	require.False(t, other.Shared())

	var wg sync.WaitGroup
	for g := uint64(0); g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint64(0); seq < perG; seq++ {
				sharedEmit(u, g, seq)
				if seq%997 == 0 {
					u.Flush()
				}
			}
		}()
	}
	wg.Wait()
	for _, st := range tr.Stats().Units {
		require.Zero(t, st.Dropped, "unit %s", st.Name)
	}
	require.NoError(t, tr.Close())

	f := readBack(t, path)
	next := make([]uint64, goroutines)
	for _, e := range f.events {
		require.Equal(t, u.ID(), e.rec.SourceID)
		key := sharedKey(t, e)
		g, seq := key>>32, key&0xffffffff
		require.Less(t, g, uint64(goroutines))
		require.Equal(t, next[g], seq, "goroutine %d: event %d comes after %d", g, seq, next[g])
		next[g]++
	}
	for g, n := range next {
		require.Equal(t, perG, n, "goroutine %d's events", g)
	}
	oracleCheck(t, path)
}

// A shared unit's emit path allocates nothing, whichever call it takes.
func TestSharedEmitAllocatesNothing(t *testing.T) {
	tr, _ := create(t, chronon.WithBlockSize(4096), chronon.WithRingSize(8192))
	defer tr.Close()
	u, err := tr.NewUnit("shared", chronon.WithShared())
	require.NoError(t, err)
	var seq uint64
	sharedEmit(u, 0, 0) // the first emit allocates the ring
	require.Zero(t, testing.AllocsPerRun(20000, func() { seq++; sharedPair.Emit(u, seq, seq, ^seq) }), "fixed-size emit")
	require.Zero(t, testing.AllocsPerRun(20000, func() { seq++; sharedText.Emit(u, seq, seq, "hello world") }), "string emit")
	require.Zero(t, testing.AllocsPerRun(20000, func() { seq++; sharedTask.Begin(u, seq, seq, 0); sharedTask.End(u, seq, seq) }), "async span")
	require.Zero(t, testing.AllocsPerRun(20000, func() { seq++; sharedCounter.Sample(u, seq, int64(seq)) }), "counter")
}

// Category masks and the record-time window still decide on a shared unit
// (its events skip the fast word, not the checks).
func TestSharedUnitHonoursMask(t *testing.T) {
	tr, path := create(t)
	u, err := tr.NewUnit("shared", chronon.WithShared(), chronon.WithUnitMask(1))
	require.NoError(t, err)
	off := chronon.MustFormat1[uint64]("shared off {}", chronon.WithCategory(8))
	on := chronon.MustFormat1[uint64]("shared on {}", chronon.WithCategory(1))
	for c := uint64(0); c < 100; c++ {
		off.Emit(u, c, c)
		on.Emit(u, c, c)
	}
	u.Disable(1)
	on.Emit(u, 100, 100)
	require.NoError(t, tr.Close())
	f := readBack(t, path)
	require.Len(t, f.events, 100)
	for _, e := range f.events {
		require.Equal(t, on.ID(), e.rec.FormatID)
	}
}
