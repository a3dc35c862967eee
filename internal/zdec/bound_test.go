package zdec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

func TestZstdBound(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	data := bytes.Repeat([]byte("0123456789abcdef"), 50_000)
	for _, src := range [][]byte{enc.EncodeAll(data, nil), enc.EncodeAll(nil, nil)} {
		bound, err := Bound(src)
		require.NoError(t, err)
		require.GreaterOrEqual(t, bound, uint64(0))
		dec, err2 := zstd.NewReader(nil)
		require.NoError(t, err2)
		got, err := dec.DecodeAll(src, nil)
		require.NoError(t, err)
		require.GreaterOrEqual(t, bound, uint64(len(got)))
	}
	_, err = Bound([]byte{1, 2, 3, 4, 5})
	require.Error(t, err)
}

// FramesEnd finds where a block's frames end whatever follows them (the
// next block's header, or the end), and only for whole frames whose first
// carries a content checksum.
func TestFramesEnd(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 50_000)
	sum, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	require.NoError(t, err)
	nosum, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	require.NoError(t, err)
	f := sum.EncodeAll(data, nil)
	require.Equal(t, len(f), FramesEnd(f))
	require.Equal(t, len(f), FramesEnd(append(append([]byte(nil), f...), 1, 0, 0, 0, 9, 9, 9, 9)), "a block header after it")
	two := append(append([]byte(nil), f...), sum.EncodeAll(data[:100], nil)...)
	require.Equal(t, len(two), FramesEnd(two))
	require.Equal(t, -1, FramesEnd(f[:len(f)-1]), "cut in its checksum")
	require.Equal(t, -1, FramesEnd(f[:len(f)/2]), "cut in its blocks")
	require.Equal(t, -1, FramesEnd(two[:len(two)-1]), "the second frame cut")
	require.Equal(t, -1, FramesEnd(nosum.EncodeAll(data, nil)), "no content checksum")
	require.Equal(t, -1, FramesEnd([]byte{1, 2, 3}))
}
