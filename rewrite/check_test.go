package rewrite

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// damagedBlocks returns a complete file (raw blocks, its footer valid) with
// one damaged block, how it was damaged, the index of that block and the
// offset the error must name.
func damagedBlocks(t *testing.T) map[string]struct {
	file  []byte
	block int
	off   int64
	why   string
} {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024})
	f := mustFooter(t, good)
	require.Greater(t, len(f.Blocks), 3)
	cases := map[string]struct {
		file  []byte
		block int
		off   int64
		why   string
	}{}
	// The first event of block 1 declares arguments that run past the end.
	b := bytes.Clone(good)
	ev := int64(f.Blocks[1].DataOffset) + schema.BlockHeaderSize
	binary.LittleEndian.PutUint16(b[ev:], 0xFFFF)
	cases["args past the end"] = struct {
		file  []byte
		block int
		off   int64
		why   string
	}{b, 1, ev, "event arguments run"}
	// Block 2's inline header counts one more event than the footer.
	b = bytes.Clone(good)
	h := int64(f.Blocks[2].DataOffset)
	binary.LittleEndian.PutUint32(b[h:], f.Blocks[2].EventCount+1)
	cases["inline count"] = struct {
		file  []byte
		block int
		off   int64
		why   string
	}{b, 2, h, "disagrees with the footer"}
	return cases
}

// Complete of a complete file decodes every block before copying it: a
// damaged one is an error naming it (the copy would be unreadable), or, with
// WithRepair, left out and reported, and the copy reads in full.
func TestCompleteChecksBlocks(t *testing.T) {
	for name, c := range damagedBlocks(t) {
		t.Run(name, func(t *testing.T) {
			r, err := mmapio.OpenBytes("bad.ctrace", c.file)
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, mmapio.StateComplete, r.Status().State)
			_, err = Complete(&bytes.Buffer{}, r, testTime)
			requireFormatError(t, err, "block "+itoa(c.block), c.off, c.why)

			rr, err := mmapio.OpenBytes("bad.ctrace", c.file, mmapio.WithRepair())
			require.NoError(t, err)
			defer rr.Close()
			var out bytes.Buffer
			rw, err := Complete(&out, rr, testTime)
			require.NoError(t, err)
			require.Len(t, rw.Dropped, 1)
			requireFormatError(t, rw.Dropped[0], "block "+itoa(c.block), c.off, c.why)
			require.Equal(t, len(rr.Blocks())-1, rw.Blocks)
			require.Equal(t, int64(out.Len()), rw.Bytes)

			r2, err := mmapio.OpenBytes("fixed.ctrace", out.Bytes())
			require.NoError(t, err)
			defer r2.Close()
			require.Equal(t, mmapio.StateComplete, r2.Status().State)
			require.Equal(t, rw.Events, r2.Status().Events)
			require.Less(t, rw.Events, uint64(400))
			n, err := tracetext.WriteDump(&bytes.Buffer{}, r2, mmapio.Query{}, 0)
			require.NoError(t, err)
			require.Equal(t, int(rw.Events), n)
		})
	}
}
