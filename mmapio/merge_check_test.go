package mmapio

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
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
		damage   func(data []byte, b Block)
		want     string
	}{
		{"corrupt zstd data", true, func(data []byte, b Block) {
			at := int(b.DataOffset) + schema.BlockHeaderSize + int(b.CompressedSize)/2
			for i := range 16 {
				data[at+i] ^= 0xa5
			}
		}, "zstd"},
		{"unit set lies", false, func(data []byte, b Block) {
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

			m, err := OpenAll(paths)
			require.NoError(t, err)
			defer m.Close()
			for _, workers := range []int{1, 3} {
				_, err = m.WriteMerged(&failingWriter{limit: 1 << 40}, MergeOptions{Workers: workers})
				require.Error(t, err, "workers %d", workers)
				require.Contains(t, err.Error(), paths[0])
				require.Contains(t, err.Error(), "block 7")
				require.Contains(t, err.Error(), tc.want)
			}
		})
	}
}
