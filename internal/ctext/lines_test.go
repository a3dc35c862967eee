package ctext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// An event uses the first format registered with its id, whether the ids
// are small (a slice) or not (a map).
func TestFormatTableFirstWins(t *testing.T) {
	for _, base := range []uint32{0, 1 << 20} {
		first, second := Compile("first {}", T{u8}), Compile("second {}", T{u8})
		tab := NewFormatTable(base + 7)
		tab.Add(base+7, first)
		tab.Add(base+7, second)
		require.Same(t, first, tab.Get(base+7))
		require.Nil(t, tab.Get(base+6))
		require.Nil(t, tab.Get(base+8))
	}
}

// A line names its unit (escaped) or, for a unit without a name, none; an
// unknown format prints "[unknown format]"; the fast and general paths
// give the same bytes.
func TestLines(t *testing.T) {
	tab := NewFormatTable(3)
	tab.Add(1, Compile("fetch pc=0x{:x} taken={}", T{u64, bol}))
	tab.Add(2, Compile("temp={}", T{f32}))
	l := NewLines([]string{"", "core0.fetch", "", "evil\x1b[2J"}, tab)
	args := A{}.U64(0x400000).U8(1)
	var cc CycleCache
	var got []byte
	got = l.AppendLine(got, &cc, 7, 1, 1, 2, args)
	got = l.AppendLine(got, &cc, 7, 2, 1, 2, args)
	got = l.AppendLine(got, &cc, 8, 3, 2, 1, A{}.F32(1.5))
	got = l.AppendLine(got, &cc, 12345678901, 9, 3, 0, nil)
	require.Equal(t, "[         7] core0.fetch: fetch pc=0x400000 taken=true\n"+
		"[         7] fetch pc=0x400000 taken=true\n"+
		"[         8] evil\\x1b[2J: temp=1.5\n"+
		"[12345678901] [unknown format]\n", string(got))
	require.Equal(t, " ", string(l.Prefix(0)))
	require.Equal(t, " core0.fetch: ", string(AppendPrefix(nil, "core0.fetch")))
}
