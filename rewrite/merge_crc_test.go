package rewrite

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

var crcFmt = chronon.MustFormat1[uint64]("crc v={}")

// Hostile review: with NoVerify, a copied block whose bytes no longer have
// the CRC32C its footer entry records was written with a checksum of its
// damaged bytes, so the output passed verify (for a raw block nothing could
// find the flipped bit afterwards). The recorded checksum is compared (the
// copy computes it anyway): a mismatch fails the merge naming the file, the
// block and its offset, with NoVerify as without, for raw and zstd blocks.
func TestMergeNoVerifyRefusesBlockFailingItsCRC(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprint("compress=", compress), func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i := range 2 {
				p := filepath.Join(dir, fmt.Sprintf("r%d.ctrace", i))
				tr, err := chronon.Create(p, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096), chronon.WithCompression(compress))
				require.NoError(t, err)
				u, err := tr.NewUnit(fmt.Sprintf("core%d", i))
				require.NoError(t, err)
				for cy := range uint64(5000) {
					crcFmt.Emit(u, cy, cy*7)
				}
				require.NoError(t, tr.Close())
				paths = append(paths, p)
			}
			in, err := mmapio.Open(paths[0])
			require.NoError(t, err)
			blocks := in.Blocks()
			require.Greater(t, len(blocks), 3)
			b := blocks[3]
			require.NoError(t, in.Close())
			data, err := os.ReadFile(paths[0])
			require.NoError(t, err)
			data[b.DataOffset+schema.BlockHeaderSize+uint64(b.CompressedSize)/2] ^= 1
			require.NoError(t, os.WriteFile(paths[0], data, 0o644))

			m, err := mmapio.OpenAll(paths)
			require.NoError(t, err)
			defer m.Close()
			for _, noVerify := range []bool{false, true} {
				var out bytesWriter
				_, err := Merge(&out, m, MergeOptions{NoVerify: noVerify})
				require.Error(t, err, "NoVerify %v", noVerify)
				require.Contains(t, err.Error(), paths[0])
				require.Contains(t, err.Error(), "block 3")
				require.Contains(t, err.Error(), fmt.Sprint(b.DataOffset))
				require.Contains(t, err.Error(), "checksum mismatch")
			}
		})
	}
}
