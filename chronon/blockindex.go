package chronon

import "github.com/chronon-sim/chronon-go/schema"

// blockRec is what the writer keeps of one written block until Close builds
// the footer from it: 48 bytes, where a schema.BlockIndex with its one-unit
// set costs 72 and its slice's growth more (a 10-hour run writing 1.5M
// blocks of 64 KiB keeps 72 MB instead of 120+; TestBlockIndexBytesPerBlock).
// The block's position in the file order is its index in the list.
type blockRec struct {
	off                uint64 // offset of the inline header
	minCycle, maxCycle uint64
	events             uint32
	usize, csize       uint32
	crc                uint32 // schema.BlockCRC of the block's bytes
	unit               uint16 // a chronon-go block holds one unit's events
}

// blockIndexChunk is how many records one chunk holds: chunks never move
// once allocated, so the list grows without copying (no 2x transient, no
// long copy on the writer goroutine) and wastes at most one partial chunk.
const blockIndexChunk = 1024

// blockIndex is the list of written blocks, in file order.
type blockIndex struct {
	chunks [][]blockRec
	n      int
}

func (x *blockIndex) add(r blockRec) {
	if x.n%blockIndexChunk == 0 {
		x.chunks = append(x.chunks, make([]blockRec, 0, blockIndexChunk))
	}
	c := &x.chunks[len(x.chunks)-1]
	*c = append(*c, r)
	x.n++
}

func (x *blockIndex) len() int { return x.n }

func (x *blockIndex) at(i int) *blockRec {
	return &x.chunks[i/blockIndexChunk][i%blockIndexChunk]
}

// entry fills the footer's entry for block i; units is the caller's
// one-element scratch for the unit set (the footer builder copies it).
func (x *blockIndex) entry(i int, bi *schema.BlockIndex, units *[1]uint16) {
	r := x.at(i)
	units[0] = r.unit
	*bi = schema.BlockIndex{
		Index:            uint32(i),
		EventCount:       r.events,
		MinCycle:         r.minCycle,
		MaxCycle:         r.maxCycle,
		UncompressedSize: r.usize,
		CompressedSize:   r.csize,
		DataOffset:       r.off,
		Units:            units[:],
		CRC:              r.crc,
		HasCRC:           true,
	}
}
