package mmapio

import (
	"bytes"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// withEmptyBlocks is ctracetest.WithEmptyBlocks: b with empty blocks of
// every kind between its blocks, without a footer when noFooter.
func withEmptyBlocks(t testing.TB, b []byte, noFooter bool) []byte {
	t.Helper()
	out, err := ctracetest.WithEmptyBlocks(b, noFooter)
	require.NoError(t, err)
	return out
}

// Empty blocks (issue 4) read as zero events: iteration, dump, queries
// and recovery of a footer-less file give what the same file without them
// gives (the rewrite package's tests complete the recovered file).
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
