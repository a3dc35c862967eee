package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Hostile review: merge --no-verify copied a raw block whose bytes fail
// the CRC32C its footer records with a checksum of the damaged bytes, and
// verify then accepted the output. It fails (status 1) naming the file, the
// block and its offset, and leaves no output.
func TestMergeNoVerifyRefusesBlockFailingItsCRC(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.ctrace")
	tr, err := chronon.Create(in, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096), chronon.WithCompression(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0")
	require.NoError(t, err)
	for cy := range uint32(5000) {
		planEv.Emit(u, uint64(cy), cy)
	}
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(in)
	require.NoError(t, err)
	b := r.Blocks()[3]
	require.NoError(t, r.Close())
	require.Equal(t, b.CompressedSize, b.UncompressedSize, "a raw block")
	data, err := os.ReadFile(in)
	require.NoError(t, err)
	data[b.DataOffset+schema.BlockHeaderSize+2] ^= 1
	require.NoError(t, os.WriteFile(in, data, 0o644))

	out := filepath.Join(dir, "m.ctrace")
	code, _, stderr := runTool("merge", "--no-verify", "-o", out, in)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, in)
	require.Contains(t, stderr, fmt.Sprintf("block 3 at byte %d: checksum mismatch", b.DataOffset))
	require.NoFileExists(t, out)
}
