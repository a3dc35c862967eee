package chronon_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// TestUnitIDBase: automatic unit ids start at WithUnitIDBase's first (the
// lowest free id at or above it), explicit ids are unaffected and taken
// ones are skipped; the events carry the ids, dump prints the units' names
// for them and the oracle accepts the high, sparse ids.
func TestUnitIDBase(t *testing.T) {
	f := formats(t)
	tr, path := create(t, chronon.WithUnitIDBase(1000))
	a, err := tr.NewUnit("rank1.core0.fetch")
	require.NoError(t, err)
	require.Equal(t, uint16(1000), a.ID())
	low, err := tr.NewUnit("rank1.low", chronon.WithUnitID(5))
	require.NoError(t, err)
	require.Equal(t, uint16(5), low.ID(), "an explicit id is kept, below the base too")
	taken, err := tr.NewUnit("rank1.taken", chronon.WithUnitID(1001))
	require.NoError(t, err)
	b, err := tr.NewUnit("rank1.core0.decode")
	require.NoError(t, err)
	require.Equal(t, uint16(1002), b.ID(), "the next automatic id skips the explicit 1001")
	_, err = tr.NewUnit("rank1.clash", chronon.WithUnitID(1000))
	require.ErrorContains(t, err, "already used")

	want := []rbEvent{}
	for i, u := range []*chronon.Unit{a, low, taken, b} {
		c := uint64(10 * (i + 1))
		f.cat4.Emit(u, c, uint32(i))
		want = append(want, ev(c, f.cat4.ID(), 4, u, 1, le32(uint32(i))))
	}
	require.NoError(t, tr.Close())
	requireSameEvents(t, want, readBack(t, path).events)

	dump, _ := dumpOf(t, path, func(*mmapio.Reader) mmapio.Query { return mmapio.Query{} })
	for _, name := range []string{"rank1.core0.fetch", "rank1.low", "rank1.taken", "rank1.core0.decode"} {
		require.Contains(t, dump, name)
	}
	lines := strings.Split(strings.TrimSpace(dump), "\n")
	require.Len(t, lines, 4)
	require.Contains(t, lines[0], "rank1.core0.fetch", "the first event (cycle 10) is unit 1000's")
	require.Contains(t, lines[3], "rank1.core0.decode", "the last event (cycle 40) is unit 1002's")
	oracleCheck(t, path)
}

// TestUnitIDBaseLimits: a base of 0 is refused at Create; automatic ids
// from the base run out at 65535 with an error naming the range.
func TestUnitIDBaseLimits(t *testing.T) {
	_, err := chronon.Create(filepath.Join(t.TempDir(), "x.ctrace"), chronon.WithUnitIDBase(0))
	require.ErrorContains(t, err, "unit id base 0")

	tr, _ := create(t, chronon.WithUnitIDBase(65534))
	defer tr.Close()
	for _, want := range []uint16{65534, 65535} {
		u, err := tr.NewUnit("u" + itoa(int(want)))
		require.NoError(t, err)
		require.Equal(t, want, u.ID())
	}
	_, err = tr.NewUnit("one.too.many")
	require.ErrorContains(t, err, "all unit ids from 65534 (WithUnitIDBase) to 65535 are in use")
	u, err := tr.NewUnit("explicit", chronon.WithUnitID(1))
	require.NoError(t, err, "explicit ids below the base stay available")
	require.Equal(t, uint16(1), u.ID())
}
