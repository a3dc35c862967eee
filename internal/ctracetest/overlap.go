package ctracetest

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/schema"
)

// OverlapBomb builds a valid file whose blocks all overlap in cycles and
// each really decode to blockBytes (at most 64 MiB) of events: block i holds
// unit i+1's W1 fetch events (35 bytes each), perCycle identical events per
// cycle from cycle 0 on. Runs of identical events compress to almost
// nothing, so 40 blocks of 64 MiB take a few MB on disk: the hostile input
// of issue 11 (a reader holding every block at the merge point needs
// blocks x blockBytes). The file passes the conformance oracle.
func OverlapBomb(blocks, blockBytes, perCycle int) ([]byte, error) {
	if blocks < 1 || blocks > 0xFFFF || blockBytes > schema.MaxBlockSize || perCycle < 1 {
		return nil, fmt.Errorf("ctracetest: OverlapBomb(%d, %d, %d) out of range", blocks, blockBytes, perCycle)
	}
	args := Args(nil).U64(0x401000).Bool(true)
	evSize := schema.EventHeaderSize + len(args)
	n := blockBytes / evSize
	if n < 1 {
		return nil, fmt.Errorf("ctracetest: OverlapBomb: a block of %d bytes holds no event", blockBytes)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	s := W1Schema(blocks)
	fb := flatbuffers.NewBuilder(1024)
	sec := schema.BuildSchema(fb, s)
	h := schema.NewHeader(schema.FlagCompressed | schema.FlagHasSchema | schema.FlagHasIndex)
	h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(sec))
	out := append(make([]byte, schema.HeaderSize), sec...)
	h.FirstBlockOffset = uint64(len(out))
	maxCycle := uint64(n-1) / uint64(perCycle)
	f := &schema.Footer{MinCycle: 0, MaxCycle: maxCycle}
	payload := make([]byte, 0, n*evSize)
	var comp []byte
	for i := range blocks {
		unit := uint16(i + 1)
		payload = payload[:0]
		for j := range n {
			r := schema.Record{Cycle: uint64(j / perCycle), FormatID: W1Fetch, Category: 2, SourceID: unit, ArgCount: 2}
			payload = schema.AppendEvent(payload, r, args)
		}
		comp = enc.EncodeAll(payload, comp[:0])
		if len(comp) >= len(payload) {
			return nil, fmt.Errorf("ctracetest: OverlapBomb: block %d does not compress", i)
		}
		bh := schema.BlockHeader{EventCount: uint32(n), MinCycle: 0, MaxCycle: maxCycle,
			UncompressedSize: uint32(len(payload)), CompressedSize: uint32(len(comp))}
		f.Blocks = append(f.Blocks, schema.BlockIndex{Index: uint32(i), EventCount: bh.EventCount, MinCycle: 0, MaxCycle: maxCycle,
			UncompressedSize: bh.UncompressedSize, CompressedSize: bh.CompressedSize, DataOffset: uint64(len(out)), Units: []uint16{unit}})
		f.TotalEvents += uint64(n)
		out = schema.AppendBlockHeader(out, bh)
		out = append(out, comp...)
	}
	foot := schema.BuildFooter(fb, f)
	h.FooterOffset, h.FooterSize = uint64(len(out)), uint64(len(foot))
	out = append(out, foot...)
	copy(out, schema.AppendHeader(nil, h))
	return out, nil
}
