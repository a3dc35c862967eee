package mmapio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// emptyBlock is an empty block's inline header and data.
type emptyBlock struct {
	h    schema.BlockHeader
	data []byte
}

// emptyKinds are the empty blocks the format allows: no data at all (zero
// or meaningless cycles), an empty zstd frame, a skippable frame, both.
func emptyKinds(t testing.TB) []emptyBlock {
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	frame := enc.EncodeAll(nil, nil)
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A53)
	skip = binary.LittleEndian.AppendUint32(skip, 5)
	skip = append(skip, "hello"...)
	kinds := []emptyBlock{
		{h: schema.BlockHeader{}},
		{h: schema.BlockHeader{MinCycle: math.MaxUint64}}, // min > max: an empty buffer's initial range
		{h: schema.BlockHeader{MinCycle: 7, MaxCycle: 9}, data: frame},
		{h: schema.BlockHeader{MinCycle: 5, MaxCycle: 5}, data: skip},
		{h: schema.BlockHeader{MinCycle: 1, MaxCycle: 2}, data: append(append([]byte{}, skip...), frame...)},
	}
	for i := range kinds {
		kinds[i].h.CompressedSize = uint32(len(kinds[i].data))
	}
	return kinds
}

// withEmptyBlocks rebuilds file b (written with a footer) with an empty
// block before every other block and one at the end, cycling through
// emptyKinds. noFooter leaves the file as a killed writer of ours does
// (header complete up to the first block, no footer).
func withEmptyBlocks(t testing.TB, b []byte, noFooter bool) []byte {
	t.Helper()
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	kinds := emptyKinds(t)
	if h.Flags&schema.FlagCompressed == 0 {
		kinds = kinds[:2] // no zstd data in a file without compression
	}
	out := bytes.Clone(b[:h.FirstBlockOffset])
	var blocks []schema.BlockIndex
	k := 0
	addEmpty := func() {
		e := kinds[k%len(kinds)]
		k++
		blocks = append(blocks, schema.BlockIndex{MinCycle: e.h.MinCycle, MaxCycle: e.h.MaxCycle,
			CompressedSize: e.h.CompressedSize, DataOffset: uint64(len(out)), Units: []uint16{}})
		out = schema.AppendBlockHeader(out, e.h)
		out = append(out, e.data...)
	}
	for i, blk := range f.Blocks {
		if i%2 == 0 {
			addEmpty()
		}
		end := blk.DataOffset + schema.BlockHeaderSize + uint64(blk.CompressedSize)
		data := b[blk.DataOffset:end]
		blk.DataOffset = uint64(len(out))
		out = append(out, data...)
		blocks = append(blocks, blk)
	}
	for range len(kinds) {
		addEmpty()
	}
	if k%len(kinds) == 1 { // end on an empty block that is not zero bytes (a zero tail is torn)
		addEmpty()
	}
	for i := range blocks {
		blocks[i].Index = uint32(i)
	}
	if noFooter {
		h.FooterOffset, h.FooterSize = 0, 0
		h.Flags &^= schema.FlagHasIndex
		copy(out, schema.AppendHeader(nil, h))
		return out
	}
	f.Blocks = blocks
	f.MinCycle, f.MaxCycle = math.MaxUint64, 0 // over every block, as the oracle checks
	for _, blk := range blocks {
		f.MinCycle, f.MaxCycle = min(f.MinCycle, blk.MinCycle), max(f.MaxCycle, blk.MaxCycle)
	}
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	h.FooterOffset, h.FooterSize = uint64(len(out)), uint64(len(foot))
	out = append(out, foot...)
	copy(out, schema.AppendHeader(nil, h))
	return out
}

// Empty blocks (issue 4) read as zero events: iteration, dump, queries,
// recovery of a footer-less file and its rewrite give what the same file
// without them gives.
func TestEmptyBlocksReadAsNothing(t *testing.T) {
	evs := ctracetest.W1Events(3000, 8, 5)
	s := ctracetest.W1Schema(8)
	for name, opts := range map[string]ctracetest.Options{
		"ours":     {BlockSize: 2048, PerUnit: true, Compress: true},
		"original": {BlockSize: 4096, Compress: true, NoUnitSets: true},
		"raw":      {BlockSize: 4096},
	} {
		t.Run(name, func(t *testing.T) {
			plain, err := ctracetest.Build(s, evs, opts)
			require.NoError(t, err)
			wr := openBytesT(t, plain)
			wantText := dumpText(t, wr, Query{}, 0)
			queries := []Query{Query{}.WithUnits(3), Query{}.WithCycles(2000, 3000), Query{}.WithCycles(0, 0)}

			b := withEmptyBlocks(t, plain, false)
			oracleCheck(t, b)
			r := openBytesT(t, b)
			require.Equal(t, StateComplete, r.Status().State)
			require.Greater(t, r.NumBlocks(), len(wr.Blocks()))
			require.Equal(t, string(wantText), string(dumpText(t, r, Query{}, 0)))
			require.Equal(t, string(wantText), string(iterText(t, r, Query{})))
			for _, q := range queries {
				require.Equal(t, string(dumpText(t, wr, q, 0)), string(dumpText(t, r, q, 0)))
			}

			nf := withEmptyBlocks(t, plain, true)
			rr := openBytesT(t, nf)
			st := rr.Status()
			require.Equal(t, StateRecovered, st.State, st.String())
			require.Equal(t, r.NumBlocks(), st.Blocks, st.String())
			require.Equal(t, uint64(len(evs)), st.Events)
			require.Zero(t, st.TornBytes, st.String())
			require.Equal(t, string(wantText), string(dumpText(t, rr, Query{}, 0)))
			require.Equal(t, string(wantText), string(iterText(t, rr, Query{})))
			var out bytes.Buffer
			_, err = rr.WriteComplete(&out, time.Unix(1700000000, 0))
			require.NoError(t, err)
			fixed := openBytesT(t, out.Bytes())
			require.Equal(t, string(wantText), string(dumpText(t, fixed, Query{}, 0)))
			oracleCheck(t, out.Bytes())
		})
	}
}

// An empty block must really be empty: frames that decode to something,
// or an all-zero tail, are not empty blocks.
func TestEmptyBlockMustBeEmpty(t *testing.T) {
	plain := sampleTrace(t, ctracetest.Options{BlockSize: 4096, Compress: true})
	h, err := schema.ParseHeader(plain, int64(len(plain)))
	require.NoError(t, err)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	frame := enc.EncodeAll([]byte("not empty"), nil)
	var bad []byte
	bad = schema.AppendBlockHeader(bad, schema.BlockHeader{CompressedSize: uint32(len(frame))})
	bad = append(bad, frame...)
	f, err := schema.DecodeFooter(plain[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	off := h.FooterOffset
	b := append(bytes.Clone(plain[:off]), bad...)
	f.Blocks = append(f.Blocks, schema.BlockIndex{Index: uint32(len(f.Blocks)), CompressedSize: uint32(len(frame)), DataOffset: off})
	f.MinCycle = 0 // the footer's range covers every block, the empty one's 0-0 too, as the oracle checks
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	h.FooterOffset, h.FooterSize = uint64(len(b)), uint64(len(foot))
	b = append(b, foot...)
	copy(b, schema.AppendHeader(nil, h))
	r, err := OpenBytes("bad.ctrace", b)
	require.NoError(t, err)
	defer r.Close()
	// The empty block is in no query's plan; verifying it (as recovery
	// does) finds that it is not empty.
	last := r.Blocks()[len(r.Blocks())-1]
	_, err = r.f.Verify(&last)
	requireFormatError(t, err, "block "+itoa(len(f.Blocks)-1), int64(off)+schema.BlockHeaderSize, "does not decode to nothing")

	// A footer-less file whose tail is zero bytes: torn, not empty blocks.
	nf := withEmptyBlocks(t, plain, true)
	nf = append(nf, make([]byte, 28*10+5)...)
	rr := openBytesT(t, nf)
	st := rr.Status()
	require.Equal(t, int64(28*10+5), st.TornBytes, st.String())
}
