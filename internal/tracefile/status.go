package tracefile

import "github.com/chronon-sim/chronon-go/schema"

// Status describes what Open found: a complete file, or one whose blocks
// were recovered by walking their inline headers (no usable footer).
type Status struct {
	Recovered bool
	// Blocks and Events count the blocks and events the file holds.
	Blocks int
	Events uint64
	// Why is set when Recovered: why the footer was not used.
	Why string
	// TornOffset and TornBytes locate the tail that follows the last
	// complete block of a recovered file and is ignored (TornBytes 0: the
	// blocks run to the end of the file). TornReason says why the bytes at
	// TornOffset are not a complete block.
	TornOffset int64
	TornBytes  int64
	TornReason string
	// Damaged lists the blocks of a recovered file that did not decode but
	// were followed by good ones (a flipped bit, not a cut): left out, each
	// as "block at byte N does not decode: why".
	Damaged []string
	// CutShort: the header places the footer past the end of the file.
	// The file was closed and then cut short (a copy taken too early, a
	// full disk), not left unclosed by a crash: what the cut took is lost.
	CutShort bool
}

// Block is one event block as the file knows it: the footer's entry for it
// (for a recovered file, its inline header and where the walk found it).
// DataOffset is the file offset of the block's inline header; Index is its
// position in Blocks; Units lists the units whose events it holds (sorted)
// as the writer recorded them or as verification found them in a recovered
// file, nil when unknown (files of the original writer).
type Block = schema.BlockIndex

// HeaderOff, PayloadOff and BlockEnd locate a block's inline header, data
// and end in the file; IsRaw reports whether its data is stored
// uncompressed.
func HeaderOff(b *Block) int64  { return int64(b.DataOffset) }
func PayloadOff(b *Block) int64 { return int64(b.DataOffset) + schema.BlockHeaderSize }
func BlockEnd(b *Block) int64   { return PayloadOff(b) + int64(b.CompressedSize) }
func IsRaw(b *Block) bool       { return b.CompressedSize == b.UncompressedSize }
