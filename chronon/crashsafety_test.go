package chronon_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Flush puts every event emitted so far on disk, readable without a footer,
// with a schema that names every unit and format they use, even those
// registered after the first block.
func TestFlushAndLateRegistrationAreOnDiskBeforeClose(t *testing.T) {
	f := formats(t)
	tr, path := create(t, chronon.WithFlushInterval(0))
	a := units(t, tr, 1)[0]
	var want []rbEvent
	for i := uint64(0); i < 100; i++ {
		f.u64b.Emit(a, i, i, true)
		want = append(want, ev(i, f.u64b.ID(), 2, a, 2, cat(u64(i), []byte{1})))
	}
	require.NoError(t, tr.Flush())
	s, got := walkFile(t, path)
	requireSameEvents(t, want, got)
	require.True(t, hasUnit(s, a.Name()))

	late, err := chronon.NewFormat1[uint16]("late {}")
	require.NoError(t, err)
	b, err := tr.NewUnit("late.unit")
	require.NoError(t, err)
	late.Emit(b, 200, 9)
	want = append(want, ev(200, late.ID(), 1, b, 1, le16(9)))
	require.NoError(t, tr.Sync())
	s, got = walkFile(t, path)
	requireSameEvents(t, want, got)
	require.True(t, hasUnit(s, "late.unit"), "the rewritten schema names the late unit")
	require.True(t, hasFormat(s, late.ID()), "and the late format")

	require.NoError(t, tr.Close())
	full := readBack(t, path)
	requireSameEvents(t, want, full.events)
	require.True(t, hasUnit(full.schema, "late.unit"))
	oracleCheck(t, path)
}

// A schema that outgrows its reserved slots is not lost: Close appends it
// after the blocks and points the header at it.
func TestFinalSchemaWhenSlotsOverflow(t *testing.T) {
	f := formats(t)
	tr, path := create(t, chronon.WithSchemaReserve(1), chronon.WithFlushInterval(0))
	a := units(t, tr, 1)[0]
	f.none.Emit(a, 1)
	require.NoError(t, tr.Flush())
	for i := 0; i < 50; i++ {
		u, err := tr.NewUnit("many.units.with.long.names." + itoa(i))
		require.NoError(t, err)
		f.none.Emit(u, 2)
	}
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	require.Len(t, got.schema.Units, 51)
	require.Greater(t, got.hdr.SchemaOffset, got.hdr.FirstBlockOffset, "final schema appended after the blocks")
	require.Len(t, got.events, 51)
	oracleCheck(t, path)
}

// The periodic flush seals the chunks of units that keep emitting, so their
// events reach the file without Flush or Close.
func TestPeriodicFlush(t *testing.T) {
	f := formats(t)
	tr, path := create(t, chronon.WithFlushInterval(20*time.Millisecond))
	u := units(t, tr, 1)[0]
	deadline := time.Now().Add(10 * time.Second)
	var cycle uint64
	for {
		cycle++
		f.none.Emit(u, cycle) // a trickle: nowhere near filling a 64 KiB chunk
		_, got := walkFile(t, path)
		if len(got) > 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no block on disk after 10s of periodic flushes")
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, tr.Close())
	require.Len(t, readBack(t, path).events, int(cycle))
}

// Under Drop, whatever is written is exactly a subset of what was emitted
// (no duplicate, no corrupt event), and the counts add up.
func TestDropPolicyWritesOnlyEmittedEvents(t *testing.T) {
	f := formats(t)
	tr, path := create(t, chronon.WithPolicy(chronon.Drop), chronon.WithBlockSize(4096), chronon.WithRingSize(8192), chronon.WithLevel(19))
	us := units(t, tr, 2)
	const n = 60000
	emitted := map[string]int{}
	rng := rand.New(rand.NewPCG(3, 3))
	for i := uint64(0); i < n; i++ {
		u := us[i%2]
		v := rng.Uint64()
		f.u64b.Emit(u, i, v, false)
		emitted[ev(i, f.u64b.ID(), 2, u, 2, cat(u64(v), []byte{0})).key()]++
	}
	require.NoError(t, tr.Close())
	got := readBack(t, path).events
	var written, dropped uint64
	for _, s := range tr.Stats().Units {
		require.Equal(t, uint64(n/2), s.Emitted)
		require.Equal(t, s.Emitted, s.Written+s.Dropped)
		written += s.Written
		dropped += s.Dropped
	}
	require.Equal(t, int(written), len(got))
	for _, e := range got {
		k := e.key()
		require.Positive(t, emitted[k], "event in the file that was never emitted (or twice): %s", k)
		emitted[k]--
	}
	t.Logf("written %d dropped %d", written, dropped)
}
