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
