package ctracetest

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

func TestSplitMix64(t *testing.T) {
	r := SplitMix64{State: 1}
	require.Equal(t, []uint64{0x910a2dec89025cc1, 0xbeeb8da1658eec67, 0xf893a2eefb32555e}, []uint64{r.Next(), r.Next(), r.Next()})
}

// The first W1 events, computed independently from the workload's
// definition (a Python transcription).
func TestW1FirstEvents(t *testing.T) {
	evs := W1Events(6, 16, 1)
	type want struct {
		cycle uint64
		unit  uint16
		fid   uint32
		args  Args
	}
	wants := []want{
		{1000, 1, W1Fetch, Args{}.U64(0x400000).Bool(true)},
		{1000, 2, W1Decode, Args{}.U32(3506550201).U8(128).I16(15525)},
		{1000, 3, W1Fetch, Args{}.U64(0x400008).Bool(false)},
		{1000, 4, W1Decode, Args{}.U32(1269456320).U8(138).I16(22440)},
		{1000, 5, W1Fetch, Args{}.U64(0x400010).Bool(true)},
		{1000, 6, W1Decode, Args{}.U32(816810478).U8(8).I16(-30906)},
	}
	for i, w := range wants {
		e := evs[i]
		require.Equal(t, w.cycle, e.Cycle, i)
		require.Equal(t, w.unit, e.SourceID, i)
		require.Equal(t, w.fid, e.FormatID, i)
		require.Equal(t, uint32(2), e.Category, i)
		require.Equal(t, []byte(w.args), e.Args, i)
		require.Equal(t, uint8(2+(i%2)), e.ArgCount, i)
	}
	s := W1Schema(16)
	require.Equal(t, "core1.dram", s.Units[15].Name)
	require.Equal(t, "dramUnit", s.Units[15].TypeName)
	require.Equal(t, "core0.fetch", s.Units[0].Name)
}

// writerCases are the layouts the writer produces; every complete one must
// pass the oracle.
func writerCases() map[string]Options {
	final := W1Schema(20)
	final.Metadata = []schema.KeyValue{{Key: "phase", Value: "final"}}
	return map[string]Options{
		"global-raw":       {BlockSize: 4096},
		"global-zstd":      {BlockSize: 4096, Compress: true},
		"perunit-zstd":     {BlockSize: 2048, PerUnit: true, Compress: true, UnitStats: true, Created: time.Unix(1700000000, 0)},
		"perunit-raw-pad":  {BlockSize: 1024, PerUnit: true, SchemaPad: 4000},
		"no-unit-sets":     {BlockSize: 4096, Compress: true, NoUnitSets: true},
		"final-schema":     {BlockSize: 4096, PerUnit: true, Compress: true, FinalSchema: final},
		"no-schema":        {BlockSize: 4096, NoSchema: true},
		"tiny-blocks-zstd": {BlockSize: schema.EventHeaderSize + 16, Compress: true},
	}
}

func TestOracleAcceptsWriterFiles(t *testing.T) {
	if _, err := Oracle(); err != nil {
		t.Skipf("!!!!! SKIPPING THE ORACLE CHECK: %v (needs %s with the zstandard module) !!!!!", err, Python)
	}
	evs := W1Events(3000, 16, 7)
	dir := t.TempDir()
	for name, opts := range writerCases() {
		t.Run(name, func(t *testing.T) {
			b, err := Build(W1Schema(16), evs, opts)
			require.NoError(t, err)
			path := filepath.Join(dir, name+".ctrace")
			require.NoError(t, os.WriteFile(path, b, 0o644))
			out, err := RunOracle("check", path)
			require.NoError(t, err)
			require.Contains(t, string(out), "OK events=3000 ")
		})
	}
}

func TestWriterLayout(t *testing.T) {
	evs := W1Events(2000, 4, 3)
	b, lay, err := BuildLayout(W1Schema(4), evs, Options{BlockSize: 2048, PerUnit: true, Compress: true, SchemaPad: 100})
	require.NoError(t, err)
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	require.Equal(t, uint64(schema.HeaderSize), h.SchemaOffset)
	require.Equal(t, h.SchemaOffset+h.SchemaSize+100, h.FirstBlockOffset, "pad after the schema")
	require.Equal(t, schema.FlagCompressed|schema.FlagHasSchema|schema.FlagHasIndex, h.Flags)
	require.Len(t, lay.EventBlocks, len(evs))
	counts := make([]uint32, len(lay.Blocks))
	for i, bi := range lay.EventBlocks {
		require.GreaterOrEqual(t, bi, 0)
		require.Equal(t, []uint16{evs[i].SourceID}, lay.Blocks[bi].Units, "one unit per block")
		counts[bi]++
	}
	for i, blk := range lay.Blocks {
		require.Equal(t, blk.EventCount, counts[i])
		require.LessOrEqual(t, blk.UncompressedSize, uint32(2048))
		ih, ok := schema.DecodeBlockHeader(b[blk.DataOffset:])
		require.True(t, ok)
		require.Equal(t, blk.Inline(), ih)
	}

	// A killed writer of ours: header complete up to the first block.
	cut, err := Build(W1Schema(4), evs, Options{BlockSize: 2048, NoFooter: true})
	require.NoError(t, err)
	hc, _ := schema.DecodeHeader(cut)
	require.Equal(t, h.SchemaSize, hc.SchemaSize)
	require.NotZero(t, hc.FirstBlockOffset)
	require.Zero(t, hc.FooterOffset)
	require.Zero(t, hc.FooterSize)

	// A killed original writer: every offset zero.
	zero, err := Build(W1Schema(4), evs, Options{BlockSize: 2048, ZeroHeader: true, Compress: true})
	require.NoError(t, err)
	hz, _ := schema.DecodeHeader(zero)
	require.Equal(t, schema.Header{Magic: schema.Magic, VersionMajor: 1, VersionMinor: 1, Flags: schema.FlagCompressed | schema.FlagHasSchema}, hz)
	require.Equal(t, schema.SchemaIdentifier, string(zero[68:72]))

	// Truncate cuts the file.
	short, err := Build(W1Schema(4), evs, Options{BlockSize: 2048, Truncate: 1000})
	require.NoError(t, err)
	require.Len(t, short, 1000)
}

func TestWriterRawWhenZstdDoesNotHelp(t *testing.T) {
	// Random bytes do not compress: the block must be stored raw (equal sizes).
	rng := SplitMix64{State: 9}
	var a Args
	for j := 0; j < 500; j++ {
		a = a.U64(rng.Next())
	}
	evs := []Event{{Record: schema.Record{Cycle: 5, FormatID: 1, SourceID: 1, ArgCount: 2}, Args: a}}
	b, lay, err := BuildLayout(W1Schema(1), evs, Options{Compress: true})
	require.NoError(t, err)
	require.Len(t, lay.Blocks, 1)
	blk := lay.Blocks[0]
	require.Equal(t, blk.UncompressedSize, blk.CompressedSize)
	got := b[blk.DataOffset+schema.BlockHeaderSize+schema.EventHeaderSize:][:len(a)]
	require.True(t, bytes.Equal(got, a), "raw block holds the event as is")
	require.Equal(t, uint16(len(a)), binary.LittleEndian.Uint16(b[blk.DataOffset+schema.BlockHeaderSize:]))
}
