package rewrite

import (
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// A block whose ids all stay is copied as it is, but only after it was
// checked as a dump checks it: a corrupt zstd frame, or a block whose
// footer unit set lies about its events, fails the merge (naming the file
// and the block) instead of being copied into an output readers refuse.
func TestMergeChecksCopiedBlocks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		compress bool
		damage   func(data []byte, b tracefile.Block)
		want     string
	}{
		{"corrupt zstd data", true, func(data []byte, b tracefile.Block) {
			at := int(b.DataOffset) + schema.BlockHeaderSize + int(b.CompressedSize)/2
			for i := range 16 {
				data[at+i] ^= 0xa5
			}
		}, "zstd"},
		{"unit set lies", false, func(data []byte, b tracefile.Block) {
			// The first event's unit becomes another unit of the file; the
			// footer still lists the block for its one unit.
			at := int(b.DataOffset) + schema.BlockHeaderSize + 18
			u := binary.LittleEndian.Uint16(data[at:])
			binary.LittleEndian.PutUint16(data[at:], u%8+1)
		}, "unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: tc.compress}
			paths := rankFiles(t, dir, 2, 30_000, o)
			in := openT(t, paths[0])
			b := in.Blocks()[7]
			require.Len(t, b.Units, 1)
			require.Equal(t, tc.compress, b.CompressedSize != b.UncompressedSize)
			require.NoError(t, in.Close())
			data, err := os.ReadFile(paths[0])
			require.NoError(t, err)
			tc.damage(data, b)
			require.NoError(t, os.WriteFile(paths[0], data, 0o644))

			m, err := mmapio.OpenAll(paths)
			require.NoError(t, err)
			defer m.Close()
			for _, workers := range []int{1, 3} {
				_, err = Merge(&failingWriter{limit: 1 << 40}, m, MergeOptions{Workers: workers})
				require.Error(t, err, "workers %d", workers)
				require.Contains(t, err.Error(), paths[0])
				require.Contains(t, err.Error(), "block 7")
				require.Contains(t, err.Error(), tc.want)
			}
			// NoVerify trusts the kept blocks: the damaged one is copied,
			// bytes unchanged, and the merge succeeds.
			var out bytesWriter
			res, err := Merge(&out, m, MergeOptions{NoVerify: true})
			require.NoError(t, err)
			require.Positive(t, res.Copied)
			damaged := data[b.DataOffset : b.DataOffset+schema.BlockHeaderSize+uint64(b.CompressedSize)]
			require.Contains(t, string(out.b), string(damaged), "the damaged block, copied as it is")
		})
	}
}

// bytesWriter collects what Merge writes, at the offsets it seeks to
// (it writes the header again at the end).
type bytesWriter struct {
	b   []byte
	off int
}

func (w *bytesWriter) Write(p []byte) (int, error) {
	if need := w.off + len(p); need > len(w.b) {
		w.b = append(w.b, make([]byte, need-len(w.b))...)
	}
	copy(w.b[w.off:], p)
	w.off += len(p)
	return len(p), nil
}

func (w *bytesWriter) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		w.off = int(off)
	case io.SeekCurrent:
		w.off += int(off)
	case io.SeekEnd:
		w.off = len(w.b) + int(off)
	}
	return int64(w.off), nil
}

// Blocks of a file without unit sets are checked even with NoVerify: an
// event of an id the file does not name may clash with another file's unit.
// (The first file's blocks keep their ids: without NoVerify's exception
// its damaged block would be copied.)
func TestMergeNoVerifyStillChecksUnlistedBlocks(t *testing.T) {
	dir := t.TempDir()
	paths := rankFiles(t, dir, 2, 20_000, ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: true, NoUnitSets: true})
	in := openT(t, paths[0])
	b := in.Blocks()[3]
	require.NoError(t, in.Close())
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	at := int(b.DataOffset) + schema.BlockHeaderSize + int(b.CompressedSize)/2
	for i := range 16 {
		data[at+i] ^= 0xa5
	}
	require.NoError(t, os.WriteFile(paths[0], data, 0o644))
	m, err := mmapio.OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	require.Nil(t, b.Units)
	_, err = Merge(&failingWriter{limit: 1 << 40}, m, MergeOptions{NoVerify: true})
	require.Error(t, err)
	require.Contains(t, err.Error(), paths[0])
}
