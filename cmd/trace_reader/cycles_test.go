package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// --cycles accepts what CHRONON_TRACE's cycles= accepts: an open end (A-)
// and hex (0x); a bare START still means "from START on", as in the
// original tool.
func TestParseCyclesSyntax(t *testing.T) {
	for _, c := range []struct {
		in         string
		start, end uint64
	}{
		{"5-9", 5, 9},
		{"5", 5, math.MaxUint64},
		{"5-", 5, math.MaxUint64},
		{" 5 - ", 5, math.MaxUint64},
		{"0x10-0x20", 16, 32},
		{"0X10-32", 16, 32},
		{"0x10-", 16, math.MaxUint64},
		{"010-0x10", 10, 16},
		{"0-18446744073709551615", 0, math.MaxUint64},
	} {
		s, e, err := parseCycles(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, [2]uint64{c.start, c.end}, [2]uint64{s, e}, c.in)
	}
	for _, bad := range []string{"", "-5", "x", "0x", "5-x", "1-2-3", "9-3", "0x20-0x10", "-", "1_000", "0o17", "0b1", "+5", "0x-1"} {
		_, _, err := parseCycles(bad)
		require.Error(t, err, bad)
	}
	code, out, stderr := runTool("filter", ref("multiblock.ctrace"), "--cycles", "0x1000-0x1010")
	require.Equal(t, 0, code, stderr)
	_, want, _ := runTool("filter", ref("multiblock.ctrace"), "--cycles", "4096-4112")
	require.NotEmpty(t, want)
	require.Equal(t, want, out)
}

// info shows a recorded selection with an open end as it was written,
// cycles=5- (the metadata keeps the number).
func TestInfoShowsOpenSelection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithSelect("cycles=5-"))
	require.NoError(t, err)
	a, _ := tr.NewUnit("a.x")
	for cy := uint64(0); cy < 20; cy++ {
		followFmt.Emit(a, cy, cy, "a")
	}
	require.NoError(t, tr.Close())
	code, out, _ := runTool("info", path)
	require.Equal(t, 0, code)
	require.Contains(t, out, "  chronon.select: cycles=5-\n")
}
