package schema

import (
	"math"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"
)

func TestNanosExact(t *testing.T) {
	cases := []struct {
		tb    TimeBase
		ticks uint64
		ns    uint64
	}{
		{Picoseconds, 0, 0},
		{Picoseconds, 1499, 1}, // 1.499 ns
		{Picoseconds, 1500, 2}, // half rounds up
		{Picoseconds, 123_456_789_000, 123_456_789},
		{Nanoseconds, 42, 42},
		{Hz(3_000_000_000), 3, 1},          // 3 cycles of 3 GHz: 1 ns
		{Hz(3_000_000_000), 1, 0},          // 0.333 ns
		{Hz(3_000_000_000), 2, 1},          // 0.667 ns
		{Hz(1_000_000), 5, 5000},           // 1 MHz: 1000 ns a cycle
		{TimeBase{5, 2}, 3, 7_500_000_000}, // 2.5 s a tick
		// Beyond 2^53 ticks a float64 product would be off; the exact path is not.
		{Picoseconds, 1<<62 + 1500, (1<<62)/1000 + 2},
		{Nanoseconds, math.MaxUint64, math.MaxUint64},
	}
	for _, c := range cases {
		require.Equal(t, c.ns, NewNanos(c.tb).Of(c.ticks), "%v: %d ticks", c.tb, c.ticks)
	}
	// A zero time base is one ns per tick (what exporters did before time bases).
	require.Equal(t, uint64(77), NewNanos(TimeBase{}).Of(77))
	// A ratio that does not fit 64 bits falls back to float64, saturating.
	huge := NewNanos(TimeBase{math.MaxUint64, 3})
	require.Equal(t, uint64(math.MaxUint64), huge.Of(10))
	require.InDelta(t, 1e9*float64(math.MaxUint64)/3, huge.PerTick(), 1e20)
}

func TestTimeBaseText(t *testing.T) {
	for tb, want := range map[TimeBase]string{
		Picoseconds:         "1 ps",
		Nanoseconds:         "1 ns",
		Hz(400_000_000):     "2500 ps",
		Hz(3_000_000_000):   "1/3000000000 s",
		{1, 1}:              "1 s",
		{}:                  "none",
		{Num: 7, Den: 0}:    "none",
		{2, 1_000_000_000}:  "2 ns",
		{1, 10_000_000_000}: "100 ps",
	} {
		require.Equal(t, want, tb.String(), "%#v", tb)
	}
	require.InDelta(t, 1e-12*5, Picoseconds.Seconds(5), 1e-24)
	require.Equal(t, 0.0, TimeBase{}.Seconds(5))
	require.InDelta(t, 1000.0/3, Hz(3_000_000).NsPerTick(), 1e-9)
}

func TestSchemaSymbolsAndUnitTimeBase(t *testing.T) {
	s := sampleSchema()
	got, _, err := DecodeSchema(BuildSchema(flatbuffers.NewBuilder(0), s), 64)
	require.NoError(t, err)
	require.Equal(t, "req_in", got.SymbolText(0))
	require.Equal(t, "", got.SymbolText(1))
	require.Equal(t, "[symbol 3]", got.SymbolText(3))
	require.Equal(t, SymbolOverflowText, got.SymbolText(SymbolOverflow))
	_, ok := got.Symbol(3)
	require.False(t, ok)
	require.Equal(t, Hz(3_000_000_000), got.TimeBaseOf(65535), "a unit's own clock")
	require.Equal(t, Picoseconds, got.TimeBaseOf(1), "the file's")
	require.Equal(t, Picoseconds, got.TimeBaseOf(9), "an unknown unit: the file's")
	f := got.Formats[2]
	require.Equal(t, 0, f.RoleIndex(RoleID))
	require.Equal(t, 1, f.RoleIndex(RoleParent))
	require.Equal(t, -1, f.RoleIndex(RoleFlow))

	// A schema without the appended fields (what the original writer and
	// older chronon-go wrote) decodes with none of them.
	old := sampleSchema()
	old.TimeBase, old.Symbols = TimeBase{}, nil
	for i := range old.Units {
		old.Units[i].TimeBase = TimeBase{}
	}
	got, _, err = DecodeSchema(BuildSchema(flatbuffers.NewBuilder(0), old), 64)
	require.NoError(t, err)
	require.True(t, got.TimeBase.IsZero())
	require.Nil(t, got.Symbols)
	require.True(t, got.TimeBaseOf(65535).IsZero())
}

// OfWhole rounds as Of does and says when it rounded: at 1 ps a tick,
// multiples of 1000 are whole nanoseconds; at 3 GHz, multiples of 3; at
// 0.4 ns (2.5 GHz), multiples of 5.
func TestNanosOfWhole(t *testing.T) {
	for _, tc := range []struct {
		tb    TimeBase
		ticks uint64
		ns    uint64
		whole bool
	}{
		{TimeBase{1, 1_000_000_000_000}, 0, 0, true},
		{TimeBase{1, 1_000_000_000_000}, 5_000, 5, true},
		{TimeBase{1, 1_000_000_000_000}, 5_400, 5, false},
		{TimeBase{1, 1_000_000_000_000}, 5_500, 6, false},
		{TimeBase{1, 3_000_000_000}, 3, 1, true},
		{TimeBase{1, 3_000_000_000}, 4, 1, false},
		{TimeBase{2, 5_000_000_000}, 5, 2, true},
		{TimeBase{2, 5_000_000_000}, 6, 2, false},
		{TimeBase{1, 1_000_000_000}, 7, 7, true},
		{TimeBase{1, 1_000_000_000}, math.MaxUint64, math.MaxUint64, true},
	} {
		n := NewNanos(tc.tb)
		ns, whole := n.OfWhole(tc.ticks)
		require.Equal(t, tc.ns, ns, "%v %d", tc.tb, tc.ticks)
		require.Equal(t, n.Of(tc.ticks), ns, "%v %d: as Of", tc.tb, tc.ticks)
		require.Equal(t, tc.whole, whole, "%v %d", tc.tb, tc.ticks)
	}
}
