package tracefile

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// AppendBlock appends each block's events as stored, after what dst holds;
// a block that does not decode is an error naming the file and the block.
func TestAppendBlock(t *testing.T) {
	evs := ctracetest.W1Events(5000, 3, 1)
	opts := ctracetest.Options{BlockSize: 4096, Compress: true, PerUnit: true}
	b, layout, err := ctracetest.BuildLayout(ctracetest.W1Schema(3), evs, opts)
	require.NoError(t, err)
	r, err := OpenBytes("test.ctrace", b, Options{})
	require.NoError(t, err)
	defer r.Close()
	for i := range r.NumBlocks() {
		out, err := r.AppendBlock([]byte("prefix"), i)
		require.NoError(t, err)
		require.Equal(t, "prefix", string(out[:6]))
		data := out[6:]
		require.Len(t, data, int(r.Blocks()[i].UncompressedSize))
		// The block's events, as added, in its order.
		var want []ctracetest.Event
		for j, blk := range layout.EventBlocks {
			if blk == i {
				want = append(want, evs[j])
			}
		}
		var got []ctracetest.Event
		for len(data) > 0 {
			rec, args, n, ok := schema.DecodeEvent(data)
			require.True(t, ok)
			got = append(got, ctracetest.Event{Record: rec, Args: args})
			data = data[n:]
		}
		require.Equal(t, want, got, "block %d", i)
	}

	bad := append([]byte(nil), b...)
	blk := layout.Blocks[1]
	bad[blk.DataOffset+schema.BlockHeaderSize+10] ^= 0xff
	rb, err := OpenBytes("bad.ctrace", bad, Options{})
	require.NoError(t, err)
	defer rb.Close()
	_, err = rb.AppendBlock(nil, 1)
	require.ErrorContains(t, err, "bad.ctrace: block 1")
	_, err = rb.AppendBlock(nil, 99999)
	require.ErrorContains(t, err, "no block 99999")
}
