package zrec

// Frame and block headers (RFC 8878 3.1.1, 3.1.1.2).

const (
	maxBlockSize = 128 << 10 // Block_Maximum_Size

	blockRaw        = 0
	blockCompressed = 2

	frameHeaderMax = 4 + 1 + 8 // magic + descriptor + largest FCS field
	blockHeaderLen = 3
	checksumLen    = 4 // Content_Checksum: low 32 bits of XXH64(content)

	// blockSlack is room past a block's raw size that building the
	// compressed block may touch before it gives up: table descriptions
	// are appended before the size check, and the bit writer stores 8
	// bytes at a time.
	blockSlack = 1024
)

// appendFrameHeader writes the magic number and a header with
// Single_Segment_flag set (no Window_Descriptor: the window is the whole
// content), Content_Checksum_flag set (the frame ends with the low 32 bits
// of XXH64 of the content, which every decoder verifies), no dictionary,
// and the content size in the smallest field that holds it (the 2-byte form
// is biased by 256).
func appendFrameHeader(dst []byte, size int) []byte {
	dst = append(dst, 0x28, 0xB5, 0x2F, 0xFD)
	const single = 1<<5 | 1<<2 // Single_Segment_flag, Content_Checksum_flag
	v := uint64(size)
	switch {
	case v < 256:
		return append(dst, single, byte(v))
	case v < 65536+256:
		v -= 256
		return append(dst, 1<<6|single, byte(v), byte(v>>8))
	case v <= 0xFFFFFFFF:
		return append(dst, 2<<6|single, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	default:
		return append(dst, 3<<6|single, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
			byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
	}
}

// appendBlockHeader writes Last_Block, Block_Type and Block_Size.
func appendBlockHeader(dst []byte, last bool, typ uint32, size int) []byte {
	h := uint32(size)<<3 | typ<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// appendChecksum writes the frame's Content_Checksum for content src.
func appendChecksum(dst, src []byte) []byte {
	h := uint32(xxh64(src))
	return append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24))
}
