package ctext

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
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

// AppendRefs renders the records refs names, across blocks, as AppendLine
// renders them one by one, and stops once text reaches the limit.
func TestAppendRefs(t *testing.T) {
	tab := NewFormatTable(2)
	tab.Add(1, Compile("fetch pc=0x{:x} taken={}", T{u64, bol}))
	tab.Add(2, Compile("s={}", T{str}))
	l := NewLines([]string{"", "core0.fetch"}, tab)
	a, b := &tracefile.Decoded{}, &tracefile.Decoded{}
	add := func(d *tracefile.Decoded, cycle uint64, unit uint16, fid uint32, argc uint8, args []byte) {
		d.Recs = append(d.Recs, tracefile.Rec{Cycle: cycle, Fid: fid, Unit: unit, Argc: argc, ArgOff: uint32(len(d.Data)), ArgLen: uint16(len(args))})
		d.Data = append(d.Data, args...)
	}
	add(a, 5, 1, 1, 2, A{}.U64(0x40).U8(1))
	add(a, 9, 0, 2, 1, A{}.Str("x\ny"))
	add(b, 5, 1, 3, 0, nil)
	add(b, 7, 1, 1, 1, A{}.U64(1)) // too few arguments for the fast path
	refs := []uint64{0, 1 << 32, 1<<32 | 1, 1}
	var want []byte
	var cc CycleCache
	for _, ref := range refs {
		d := []*tracefile.Decoded{a, b}[ref>>32]
		rc := &d.Recs[uint32(ref)]
		want = l.AppendLine(want, &cc, rc.Cycle, rc.Unit, rc.Fid, rc.Argc, d.Data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)])
	}
	require.Equal(t, "[         5] core0.fetch: fetch pc=0x40 taken=true\n"+
		"[         5] core0.fetch: [unknown format]\n"+
		"[         7] core0.fetch: fetch pc=0x1 taken={}\n"+
		"[         9] s=x\\ny\n", string(want))
	got, n := l.AppendRefs([]byte("p"), refs, []*tracefile.Decoded{a, b}, 1<<20)
	require.Equal(t, 4, n)
	require.Equal(t, "p"+string(want), string(got))
	got, n = l.AppendRefs(nil, refs, []*tracefile.Decoded{a, b}, 1)
	require.Equal(t, 1, n, "the limit stops after the line that reaches it")
	require.Equal(t, "[         5] core0.fetch: fetch pc=0x40 taken=true\n", string(got))
}
