package schema

import "encoding/binary"

// BlockHeader is the 28-byte inline header written before each block's data.
//
//	off size field
//	  0    4 event_count
//	  4    8 min_cycle
//	 12    8 max_cycle
//	 20    4 uncompressed_size
//	 24    4 compressed_size     == uncompressed_size means the data is stored raw
type BlockHeader struct {
	EventCount       uint32
	MinCycle         uint64
	MaxCycle         uint64
	UncompressedSize uint32
	CompressedSize   uint32
}

// Raw reports whether the block's data is stored uncompressed. The original
// writer keeps a block raw when zstd does not make it smaller, and marks it by
// equal sizes, even in a file with FlagCompressed set.
func (h BlockHeader) Raw() bool { return h.CompressedSize == h.UncompressedSize }

// AppendBlockHeader appends the 28-byte encoding of h to dst.
func AppendBlockHeader(dst []byte, h BlockHeader) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, h.EventCount)
	dst = le.AppendUint64(dst, h.MinCycle)
	dst = le.AppendUint64(dst, h.MaxCycle)
	dst = le.AppendUint32(dst, h.UncompressedSize)
	return le.AppendUint32(dst, h.CompressedSize)
}

// PutBlockHeader writes the encoding of h into b[:28].
func PutBlockHeader(b []byte, h BlockHeader) {
	le := binary.LittleEndian
	_ = b[BlockHeaderSize-1]
	le.PutUint32(b[0:], h.EventCount)
	le.PutUint64(b[4:], h.MinCycle)
	le.PutUint64(b[12:], h.MaxCycle)
	le.PutUint32(b[20:], h.UncompressedSize)
	le.PutUint32(b[24:], h.CompressedSize)
}

// DecodeBlockHeader decodes b[:28]; false when b is shorter.
func DecodeBlockHeader(b []byte) (BlockHeader, bool) {
	if len(b) < BlockHeaderSize {
		return BlockHeader{}, false
	}
	le := binary.LittleEndian
	return BlockHeader{
		EventCount:       le.Uint32(b[0:]),
		MinCycle:         le.Uint64(b[4:]),
		MaxCycle:         le.Uint64(b[12:]),
		UncompressedSize: le.Uint32(b[20:]),
		CompressedSize:   le.Uint32(b[24:]),
	}, true
}

// Plausible reports why a decoded inline header cannot describe a block, or
// "" when it can. It does not look at the data: a reader walking blocks
// without a footer uses it to stop at a torn or foreign tail.
func (h BlockHeader) Plausible() string {
	switch {
	case h.CompressedSize == 0:
		return "compressed size is zero"
	case h.UncompressedSize == 0:
		return "uncompressed size is zero"
	case h.UncompressedSize > MaxBlockSize:
		return "uncompressed size exceeds the 64 MiB limit"
	case h.CompressedSize > h.UncompressedSize:
		return "compressed size exceeds uncompressed size"
	case h.EventCount == 0:
		return "event count is zero"
	case uint64(h.EventCount)*EventHeaderSize > uint64(h.UncompressedSize):
		return "more events than the uncompressed size can hold"
	case h.MinCycle > h.MaxCycle:
		return "min cycle exceeds max cycle"
	}
	return ""
}
