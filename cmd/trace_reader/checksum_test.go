package main

import (
	"os"
	"path/filepath"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/schema"
)

// Every section of a file we write is checked: a flipped bit in a raw
// block's data or in a block's inline header is an error naming the block
// and its offset ("checksum mismatch"); one in the schema (a unit name) or
// the header fails the open; a footer stripped of its crc32c in a file
// whose header says CHECKSUMS is refused.
func TestChecksumsCoverEverySection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "raw.ctrace")
	_, err := workload.Run("w1", path, 4000, 4, 1, chronon.WithAutoMetadata(false), chronon.WithCompression(false))
	require.NoError(t, err)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	h, err := schema.ParseHeader(good, int64(len(good)))
	require.NoError(t, err)
	require.NotZero(t, h.Flags&schema.FlagChecksums)
	foot, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	b1 := foot.Blocks[1]
	require.Equal(t, b1.CompressedSize, b1.UncompressedSize, "block 1 is raw")

	bad := filepath.Join(dir, "bad.ctrace")
	read := func(at uint64, bit byte) (int, string) {
		c := append([]byte(nil), good...)
		c[at] ^= bit
		require.NoError(t, os.WriteFile(bad, c, 0o644))
		code, _, errOut := runTool("dump", bad)
		return code, errOut
	}
	// A raw block's data: an argument byte deep in the block.
	code, errOut := read(b1.DataOffset+schema.BlockHeaderSize+uint64(b1.CompressedSize)-3, 0x10)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "block 1 at byte ")
	require.Contains(t, errOut, "checksum mismatch")
	// The inline header: its max_cycle, which the footer repeats.
	code, errOut = read(b1.DataOffset+12, 1)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "block 1 at byte ")
	require.Contains(t, errOut, "checksum mismatch")
	// The schema section and the header.
	code, errOut = read(h.SchemaOffset+h.SchemaSize/2, 2)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "schema")
	require.Contains(t, errOut, "checksum mismatch")
	code, errOut = read(40, 1) // footer_size
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "header")
	require.Contains(t, errOut, "checksum mismatch")

	// The footer rebuilt without its checksums, the header made to match.
	foot.HasCRC = false
	fb := schema.BuildFooter(flatbuffers.NewBuilder(0), foot)
	h.FooterSize = uint64(len(fb))
	c := schema.AppendHeader(nil, h)
	c = append(c, good[schema.HeaderSize:h.FooterOffset]...)
	c = append(c, fb...)
	require.NoError(t, os.WriteFile(bad, c, 0o644))
	code, _, errOut = runTool("dump", bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "footer")
	require.Contains(t, errOut, "no crc32c")
}
