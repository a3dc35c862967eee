package mmapio

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// A footer entry whose unit set does not hold the units of its block's
// events (one unit or several) makes decoding the block an error naming the
// file, the block and the byte, instead of a unit query that silently
// returns other units' events (the rewrite package's Complete records the
// units the events hold, so its copy answers unit queries right).
func TestFooterUnitsChecked(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, PerUnit: true})
	f := mustFooter(t, good)
	real := f.Blocks[0].Units
	require.Len(t, real, 1)
	other := uint16(0)
	for _, b := range f.Blocks {
		if b.Units[0] != real[0] {
			other = b.Units[0]
			break
		}
	}
	require.NotEqual(t, real[0], other)
	for name, lie := range map[string][]uint16{"one": {other}, "several": {other, 200}} {
		t.Run(name, func(t *testing.T) {
			bad := rewriteFooter(t, good, func(f *schema.Footer) { f.Blocks[0].Units = lie })
			r, err := OpenBytes("bad.ctrace", bad)
			require.NoError(t, err)
			defer r.Close()
			_, err = writeDump(r, &bytes.Buffer{}, Query{}, 0)
			requireFormatError(t, err, "block 0", int64(f.Blocks[0].DataOffset)+schema.BlockHeaderSize, "event of unit "+itoa(int(real[0])))
			_, err = writeDump(r, &bytes.Buffer{}, Query{}.WithUnits(other), 0)
			requireFormatError(t, err, "block 0", -1, "but the footer lists the block's units as")
		})
	}
}

// The windowed path (a budget smaller than the overlapping blocks) checks
// each decoded block against its footer unit set too.
func TestFooterUnitsCheckedInWindows(t *testing.T) {
	good, err := overlapTrace()
	require.NoError(t, err)
	f := mustFooter(t, good)
	lie := f.Blocks[1].Units
	require.NotEqual(t, f.Blocks[0].Units, lie)
	bad := rewriteFooter(t, good, func(f *schema.Footer) { f.Blocks[0].Units = lie })
	r, err := OpenBytes("bad.ctrace", bad, WithMemoryBudget(4<<20), WithSpillDir(""))
	require.NoError(t, err)
	defer r.Close()
	_, err = writeDump(r, &bytes.Buffer{}, Query{}, 0)
	requireFormatError(t, err, "block 0", int64(f.Blocks[0].DataOffset)+schema.BlockHeaderSize, "but the footer lists the block's units as")
	// The budget does take the dump through windows (blocks decoded again).
	r0, err := OpenBytes("good.ctrace", good, WithMemoryBudget(4<<20), WithSpillDir(""))
	require.NoError(t, err)
	defer r0.Close()
	_, err = writeDump(r0, &bytes.Buffer{}, Query{}, 0)
	require.NoError(t, err)
	require.Greater(t, r0.f.Decodes(), int64(r0.NumBlocks()))
}
