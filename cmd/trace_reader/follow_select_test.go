package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// TestInfoShowsSelection: info prints the record-time selection a trace
// was written with (its chronon.select metadata).
func TestInfoShowsSelection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithSelect("units=a*; cycles=5-9"))
	require.NoError(t, err)
	a, _ := tr.NewUnit("a.x")
	b, _ := tr.NewUnit("b.x")
	for cy := uint64(0); cy < 20; cy++ {
		followFmt.Emit(a, cy, cy, "a")
		followFmt.Emit(b, cy, cy, "b")
	}
	require.NoError(t, tr.Close())
	code, out, _ := runTool("info", path)
	require.Equal(t, 0, code)
	require.Contains(t, out, "  chronon.select: units=a*;cycles=5-9\n")
	code, out, _ = runTool("dump", path)
	require.Equal(t, 0, code)
	require.Equal(t, "[         5] a.x: follow pc=0x5 s=a\n[         6] a.x: follow pc=0x6 s=a\n[         7] a.x: follow pc=0x7 s=a\n"+
		"[         8] a.x: follow pc=0x8 s=a\n[         9] a.x: follow pc=0x9 s=a\n", out)
}
