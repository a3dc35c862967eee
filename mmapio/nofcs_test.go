package mmapio

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// streamedZeros returns a zstd frame of n zero bytes as a streaming encoder
// writes it: no content size in the frame header, a few KiB for 256 MiB.
func streamedZeros(t *testing.T, n int) []byte {
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	zeros := make([]byte, 1<<20)
	for range n / len(zeros) {
		_, err := enc.Write(zeros)
		require.NoError(t, err)
	}
	require.NoError(t, enc.Close())
	var zh zstd.Header
	require.NoError(t, zh.Decode(buf.Bytes()))
	require.False(t, zh.HasFCS)
	return buf.Bytes()
}

// A footer-less file of 20 blocks that declare 64 MiB each while their
// frames (no content size) decode to 256 MiB: the recovery walk stops
// decoding a frame as soon as it outgrows the declared size, so Open and
// dump cost about one block's buffer, not the decoder's output beyond it.
func TestNoContentSizeFrameOverrun(t *testing.T) {
	const usize = schema.MaxBlockSize
	frame := streamedZeros(t, 256<<20)
	h := schema.NewHeader(schema.FlagCompressed | schema.FlagHasIndex)
	h.FirstBlockOffset = schema.HeaderSize
	out := schema.AppendHeader(nil, h)
	for range 20 {
		bh := schema.BlockHeader{EventCount: 1000, MaxCycle: 10, UncompressedSize: usize, CompressedSize: uint32(len(frame))}
		out = schema.AppendBlockHeader(out, bh)
		out = append(out, frame...)
	}
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	r, err := OpenBytes("bad.ctrace", out, WithMemoryBudget(8<<20))
	require.NoError(t, err)
	defer r.Close()
	var dump bytes.Buffer
	n, err := writeDump(r, &dump, Query{}, 0)
	runtime.ReadMemStats(&ms1)
	require.NoError(t, err)
	require.Zero(t, n)
	st := r.Status()
	require.Equal(t, StateRecovered, st.State)
	require.Zero(t, st.Blocks)
	require.Equal(t, int64(schema.HeaderSize), st.TornOffset)
	grew := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("allocated %d MiB, heap in use %d MiB", grew>>20, ms1.HeapInuse>>20)
	require.Less(t, grew, uint64(100<<20))
	require.Contains(t, st.TornReason, "more than the declared")
}

// Frames without a content size that decode to exactly the declared size
// read as any block; one that decodes to less is an error naming the block.
func TestNoContentSizeFrameExact(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024})
	f := mustFooter(t, good)
	b0 := f.Blocks[0]
	data := good[b0.DataOffset+schema.BlockHeaderSize : b0.DataOffset+schema.BlockHeaderSize+uint64(b0.UncompressedSize)]
	stream := func(d []byte, opts ...zstd.EOption) []byte {
		var buf bytes.Buffer
		enc, err := zstd.NewWriter(&buf, append(opts, zstd.WithEncoderConcurrency(1))...)
		require.NoError(t, err)
		_, err = enc.Write(d[:len(d)/2])
		require.NoError(t, err)
		require.NoError(t, enc.Flush()) // the frame header goes out before the size is known
		_, err = enc.Write(d[len(d)/2:])
		require.NoError(t, err)
		require.NoError(t, enc.Close())
		var zh zstd.Header
		require.NoError(t, zh.Decode(buf.Bytes()))
		require.False(t, zh.HasFCS)
		return buf.Bytes()
	}
	file := func(frame []byte) []byte {
		h, err := schema.ParseHeader(good, int64(len(good)))
		require.NoError(t, err)
		h.Flags |= schema.FlagCompressed
		h.FooterOffset, h.FooterSize = 0, 0 // a killed writer's: the blocks are walked
		out := append(schema.AppendHeader(nil, h), good[schema.HeaderSize:h.FirstBlockOffset]...)
		bh := b0.Inline()
		bh.CompressedSize = uint32(len(frame))
		out = schema.AppendBlockHeader(out, bh)
		return append(out, frame...)
	}
	r := openBytesT(t, file(stream(data)))
	require.Equal(t, 1, r.Status().Blocks)
	r0 := openBytesT(t, good)
	q := Query{}.WithCycles(b0.MinCycle, b0.MaxCycle)
	want := string(dumpText(t, r0, q, int(b0.EventCount)))
	require.Equal(t, want, string(dumpText(t, r, Query{}, 0)))

	bad := file(stream(data[:len(data)-1]))
	r2 := openBytesT(t, bad)
	require.Zero(t, r2.Status().Blocks)
	require.Contains(t, r2.Status().TornReason, "decode to "+itoa(len(data)-1)+" bytes, the block header declares "+itoa(len(data)))

	// A window past streamWindow for a small block is refused before its
	// history buffer is allocated.
	wide := file(stream(data, zstd.WithWindowSize(16<<20)))
	r3 := openBytesT(t, wide)
	require.Zero(t, r3.Status().Blocks)
	require.Contains(t, r3.Status().TornReason, "window size exceeded")
}
