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

// A frame whose content checksum flag was cleared decodes (its checksum is
// then 4 stray bytes after it): both ways of reading a block refuse it,
// and one whose checksum does not match says "checksum mismatch".
func TestBlockReadsCheckFrames(t *testing.T) {
	opts := ctracetest.Options{BlockSize: 4096, Compress: true, PerUnit: true}
	good, err := ctracetest.Build(ctracetest.W1Schema(3), ctracetest.W1Events(2000, 3, 1), opts)
	require.NoError(t, err)
	r, err := OpenBytes("good.ctrace", good, Options{})
	require.NoError(t, err)
	b0 := r.Blocks()[0]
	r.Close()
	require.NotEqual(t, b0.CompressedSize, b0.UncompressedSize)
	for name, c := range map[string]struct {
		at   int64
		bit  byte
		want string
	}{
		"flag cleared":     {PayloadOff(&b0) + 4, 4, "not a zstd frame follow"},
		"checksum flipped": {BlockEnd(&b0) - 1, 1, "checksum mismatch"},
	} {
		t.Run(name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			b[c.at] ^= c.bit
			r, err := OpenBytes("bad.ctrace", b, Options{})
			require.NoError(t, err)
			defer r.Close()
			_, err = r.AppendBlock(nil, 0)
			require.ErrorContains(t, err, "block 0")
			require.ErrorContains(t, err, c.want)
			blk := r.Blocks()[0]
			_, _, err = r.BlockBytes(&blk)
			require.ErrorContains(t, err, c.want)
		})
	}
}
