package ctracetest

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/schema"
)

// Edits of a written file, for the tests of its reader and of what writes
// files from its blocks.

// EditFooter decodes the footer of b, lets edit change it, and appends the
// re-encoded footer in its place, pointing the header at it.
func EditFooter(b []byte, edit func(f *schema.Footer)) ([]byte, error) {
	h, err := schema.ParseHeader(b, int64(len(b)))
	if err != nil {
		return nil, err
	}
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	if err != nil {
		return nil, err
	}
	edit(f)
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	out := append(bytes.Clone(b[:h.FooterOffset]), foot...)
	h.FooterSize = uint64(len(foot))
	copy(out, schema.AppendHeader(nil, h))
	return out, nil
}

// FooterLie is an edit that makes a footer disagree with its blocks (the
// blocks themselves stay good).
type FooterLie struct {
	Name string
	Edit func(f *schema.Footer)
}

// FooterLies are the ways a footer can disagree with its blocks that the
// conformance oracle rejects: an entry listed twice, blocks that overlap
// or are out of file order, a block_index that is not the position, totals
// that are not the blocks'. They expect a file of at least 6 blocks.
func FooterLies() []FooterLie {
	renumber := func(f *schema.Footer) {
		for i := range f.Blocks {
			f.Blocks[i].Index = uint32(i)
		}
	}
	return []FooterLie{
		{"one block listed twice", func(f *schema.Footer) {
			f.Blocks = append(f.Blocks[:3:3], f.Blocks[2:]...)
			renumber(f)
		}},
		{"one block listed twice, totals adjusted", func(f *schema.Footer) {
			f.TotalEvents += uint64(f.Blocks[2].EventCount)
			f.Blocks = append(f.Blocks[:3:3], f.Blocks[2:]...)
			renumber(f)
		}},
		{"the last block listed again first", func(f *schema.Footer) {
			f.Blocks = append([]schema.BlockIndex{f.Blocks[len(f.Blocks)-1]}, f.Blocks...)
			renumber(f)
		}},
		{"overlapping blocks", func(f *schema.Footer) { f.Blocks[4].DataOffset -= 8 }},
		{"out of file order", func(f *schema.Footer) {
			f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1]
			renumber(f)
		}},
		{"block_index not the position", func(f *schema.Footer) { f.Blocks[5].Index = 9 }},
		{"total_events 2^64-1", func(f *schema.Footer) { f.TotalEvents = math.MaxUint64 }},
		{"total_events one short", func(f *schema.Footer) { f.TotalEvents-- }},
		{"min_cycle", func(f *schema.Footer) { f.MinCycle++ }},
		{"max_cycle", func(f *schema.Footer) { f.MaxCycle = math.MaxUint64 }},
	}
}

// emptyBlock is an empty block's inline header and data.
type emptyBlock struct {
	h    schema.BlockHeader
	data []byte
}

// emptyKinds are the empty blocks the format allows: no data at all (zero
// or meaningless cycles), an empty zstd frame, a skippable frame, both.
func emptyKinds() ([]emptyBlock, error) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		return nil, err
	}
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
	return kinds, nil
}

// WithEmptyBlocks rebuilds file b (written with a footer) with an empty
// block before every other block and one at the end, cycling through the
// empty blocks the format allows (no data, an empty zstd frame, a
// skippable frame, both; only the first in a file without compression).
// noFooter leaves the file as a killed writer of ours does (header complete
// up to the first block, no footer).
func WithEmptyBlocks(b []byte, noFooter bool) ([]byte, error) {
	h, err := schema.ParseHeader(b, int64(len(b)))
	if err != nil {
		return nil, err
	}
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	if err != nil {
		return nil, err
	}
	kinds, err := emptyKinds()
	if err != nil {
		return nil, err
	}
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
		return out, nil
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
	return out, nil
}

// FuzzSeeds are the files a fuzz target that opens and reads a trace
// starts from: every reference vector in refDir (the first 64 KiB of the
// large ones: a cut file) and the layouts of our writer, complete,
// crashed and cut.
func FuzzSeeds(refDir string) ([][]byte, error) {
	var seeds [][]byte
	for _, name := range []string{"mixed-small.ctrace", "raw.ctrace", "noschema.ctrace", "noindex.ctrace", "noindex-twin.ctrace", "crash.ctrace", "crash.ctrace.crash", "multiblock.ctrace"} {
		b, err := os.ReadFile(filepath.Join(refDir, name))
		if err != nil {
			return nil, err
		}
		if len(b) > 64<<10 {
			seeds = append(seeds, b[:64<<10])
			continue
		}
		seeds = append(seeds, b)
	}
	evs := W1Events(200, 4, 1)
	for _, o := range []Options{
		{BlockSize: 600, PerUnit: true, Compress: true, UnitStats: true},
		{BlockSize: 600, Compress: true, ZeroHeader: true},
		{BlockSize: 600, PerUnit: true, NoFooter: true, SchemaPad: 20},
		{BlockSize: 900, NoSchema: true},
		{BlockSize: 900, FinalSchema: W1Schema(5)},
		{BlockSize: 600, Compress: true, Truncate: 3000},
	} {
		b, err := Build(W1Schema(4), evs, o)
		if err != nil {
			return nil, err
		}
		seeds = append(seeds, b)
	}
	return seeds, nil
}

// WithSchemaFrame returns a copy of b with an empty block holding a zstd
// skippable frame of payload n bytes inserted before the inline header at
// off, as chronon-go appends a schema that outgrew its slots.
func WithSchemaFrame(b []byte, off int64, n int) []byte {
	fr := schema.AppendBlockHeader(nil, schema.BlockHeader{CompressedSize: uint32(8 + n)})
	fr = binary.LittleEndian.AppendUint32(fr, 0x184D2A5C)
	fr = binary.LittleEndian.AppendUint32(fr, uint32(n))
	fr = append(fr, bytes.Repeat([]byte{0xA5}, n)...)
	out := append([]byte(nil), b[:off]...)
	out = append(out, fr...)
	return append(out, b[off:]...)
}
