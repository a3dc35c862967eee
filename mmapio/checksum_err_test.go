package mmapio_test

import (
	"errors"
	"os"
	"path/filepath"
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
