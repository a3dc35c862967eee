package mmapio_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// readAll opens path and reads every event, returning the first error.
func readAll(path string) error {
	r, err := mmapio.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for range r.Events(mmapio.Query{}) {
	}
	return r.Err()
}

// requireChecksumErr asserts that err is a checksum mismatch (errors.Is
// ErrChecksum) that names the file, the section and the byte offset.
func requireChecksumErr(t *testing.T, err error, path, section string, offset int64) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, mmapio.ErrChecksum, "%v", err)
	var fe *schema.FormatError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, path, fe.File)
	require.Equal(t, section, fe.Section)
	require.Equal(t, offset, fe.Offset)
	require.Contains(t, err.Error(), "checksum mismatch")
}

// A checksum mismatch anywhere (header, schema, footer, a block's CRC32C,
// a zstd frame's content checksum) is one typed error, ErrChecksum, that
// still names file, section and offset; other damage is not.
func TestChecksumMismatchIsTyped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "raw.ctrace")
	_, err := workload.Run("w1", path, 4000, 4, 1, chronon.WithAutoMetadata(false), chronon.WithCompression(false))
	require.NoError(t, err)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	h, err := schema.ParseHeader(good, int64(len(good)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	b1 := foot.Blocks[1]

	bad := filepath.Join(dir, "bad.ctrace")
	flip := func(src []byte, at uint64, bit byte) {
		c := append([]byte(nil), src...)
		c[at] ^= bit
		require.NoError(t, os.WriteFile(bad, c, 0o644))
	}
	flip(good, b1.DataOffset+schema.BlockHeaderSize+uint64(b1.CompressedSize)-3, 0x10)
	requireChecksumErr(t, readAll(bad), bad, "block 1", int64(b1.DataOffset))
	flip(good, h.SchemaOffset+h.SchemaSize/2, 2)
	requireChecksumErr(t, readAll(bad), bad, "schema", int64(h.SchemaOffset))
	flip(good, 40, 1)
	requireChecksumErr(t, readAll(bad), bad, "header", schema.HeaderSize-4)
	flip(good, h.FooterOffset+h.FooterSize-5, 1)
	requireChecksumErr(t, readAll(bad), bad, "footer", int64(h.FooterOffset))

	// A zstd frame's content checksum (a file without CRC32C).
	evs := ctracetest.W1Events(3000, 8, 5)
	z, err := ctracetest.Build(ctracetest.W1Schema(8), evs, ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true})
	require.NoError(t, err)
	zp := filepath.Join(dir, "z.ctrace")
	require.NoError(t, os.WriteFile(zp, z, 0o644))
	r, err := mmapio.Open(zp)
	require.NoError(t, err)
	zb := r.Blocks()[2]
	require.NoError(t, r.Close())
	require.NotEqual(t, zb.CompressedSize, zb.UncompressedSize, "block 2 is raw")
	flip(z, zb.DataOffset+schema.BlockHeaderSize+uint64(zb.CompressedSize)-2, 8) // in its content checksum
	requireChecksumErr(t, readAll(bad), bad, "block 2", int64(zb.DataOffset)+schema.BlockHeaderSize)

	// Other damage is not a checksum mismatch.
	c := append([]byte(nil), z...)
	copy(c[zb.DataOffset+schema.BlockHeaderSize:], []byte{0xef, 0xbe, 0xad, 0xde}) // no zstd magic
	require.NoError(t, os.WriteFile(bad, c, 0o644))
	err = readAll(bad)
	require.Error(t, err)
	require.False(t, errors.Is(err, mmapio.ErrChecksum), "%v", err)
	require.NotContains(t, err.Error(), "checksum mismatch")
}

// A raw block of a file of ours without a footer has no checksum (its
// CRC32C is in the footer, and it has no zstd frame): the recovery walk
// checks its events against what the writer writes, and leaves a block
// out as damaged when a bit flipped in its args_size, unit, arg_count or
// padding; a flipped argument value passes (docs/format.md says so).
func TestRawBlockWithoutFooterIsChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "raw.ctrace")
	_, err := workload.Run("w1", path, 4000, 4, 1, chronon.WithAutoMetadata(false), chronon.WithCompression(false))
	require.NoError(t, err)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	h, err := schema.ParseHeader(good, int64(len(good)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	require.Greater(t, len(foot.Blocks), 3)
	kh := h
	kh.FooterOffset, kh.FooterSize = 0, 0
	killed := append(schema.AppendHeader(nil, kh), good[schema.HeaderSize:h.FooterOffset]...)
	b2 := foot.Blocks[2]
	require.Equal(t, b2.CompressedSize, b2.UncompressedSize, "block 2 is raw")
	ev := b2.DataOffset + schema.BlockHeaderSize // its first event
	second := ev + schema.EventHeaderSize + uint64(binary.LittleEndian.Uint16(killed[ev:]))

	for name, at := range map[string]uint64{
		"args_size": second, "unit": second + 18, "arg_count": second + 20, "padding": second + 23,
	} {
		bad := append([]byte(nil), killed...)
		bad[at] ^= 1
		r, err := mmapio.OpenBytes("killed.ctrace", bad)
		require.NoError(t, err, name)
		st := r.Status()
		require.Len(t, st.Damaged, 1, "%s: %s", name, st.String())
		require.Contains(t, st.Damaged[0], "block at byte "+strconv.FormatUint(b2.DataOffset, 10)+" does not decode", name)
		require.Zero(t, st.TornBytes, "%s: %s", name, st.String())
		require.Equal(t, len(foot.Blocks)-1, st.Blocks, name)
		require.NoError(t, r.Close())
	}

	// An argument value: nothing vouches for it.
	bad := append([]byte(nil), killed...)
	bad[second+schema.EventHeaderSize] ^= 1
	r, err := mmapio.OpenBytes("killed.ctrace", bad)
	require.NoError(t, err)
	require.Empty(t, r.Status().Damaged)
	require.Equal(t, len(foot.Blocks), r.Status().Blocks)
	require.NoError(t, r.Close())
}
