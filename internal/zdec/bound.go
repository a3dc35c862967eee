package zdec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	frameMagic    = 0xFD2FB528
	skippableMask = 0xFFFFFFF0
	skippableBase = 0x184D2A50
)

// isFrameStart reports whether b starts with a zstd frame's magic or a
// skippable frame's.
func isFrameStart(b []byte) bool {
	m := binary.LittleEndian.Uint32(b)
	return m == frameMagic || m&skippableMask == skippableBase
}

// Bound returns an upper bound of what the zstd frames in src decode
// to, from their block headers alone (RFC 8878 section 3.1): a raw or RLE
// block regenerates exactly its Block_Size, a compressed one at most
// 128 KiB; skippable frames regenerate nothing. It reads headers only
// (3 bytes per zstd block), so a block can be refused before a buffer is
// allocated for a size its frames cannot reach.
func Bound(src []byte) (uint64, error) {
	var bound uint64
	for p := 0; p < len(src); {
		if len(src)-p < 4 || p > 0 && !isFrameStart(src[p:]) {
			// What a frame whose checksum flag was cleared leaves: its
			// 4-byte checksum after its end.
			return bound, fmt.Errorf("the frames end at byte %d, and %d bytes that are not a zstd frame follow", p, len(src)-p)
		}
		next, n, _, err := frameAt(src, p)
		bound += n
		if err != nil {
			return bound, err
		}
		p = next
	}
	return bound, nil
}

// FramesEnd returns where the zstd frames at the start of src end, read
// from their headers alone (as Bound reads them): the first frame, then
// each that follows it directly, up to the first bytes that do not start
// a frame. It returns -1 when src does not start with a whole frame that
// carries a content checksum, or a frame after it is not whole: a block's
// data whose end its inline header misstates (a flipped bit in
// compressed_size) still ends where its frames do, and only a checksummed
// frame vouches for what it decodes to.
func FramesEnd(src []byte) int {
	p := 0
	for p == 0 || len(src)-p >= 4 && isFrameStart(src[p:]) {
		if len(src)-p < 4 {
			return -1
		}
		next, _, sum, err := frameAt(src, p)
		if err != nil || p == 0 && !sum {
			return -1
		}
		p = next
	}
	return p
}

// frameAt reads the frame at src[p:] (a zstd frame or a skippable one) by
// its headers: where it ends, the bound of what it decodes to, and
// whether it carries a content checksum.
func frameAt(src []byte, p int) (next int, bound uint64, checksum bool, err error) {
	const maxBlockOut = 128 << 10
	magic := binary.LittleEndian.Uint32(src[p:])
	if magic&skippableMask == skippableBase {
		if len(src)-p < 8 {
			return p, 0, false, errors.New("truncated skippable frame")
		}
		n := uint64(binary.LittleEndian.Uint32(src[p+4:]))
		if n > uint64(len(src)-p-8) {
			return p, 0, false, errors.New("skippable frame runs past the data")
		}
		return p + 8 + int(n), 0, false, nil
	}
	if magic != frameMagic {
		return p, 0, false, errors.New("not a zstd frame")
	}
	p += 4
	if p >= len(src) {
		return p, 0, false, errors.New("truncated frame header")
	}
	fhd := src[p]
	p++
	single := fhd&0x20 != 0
	hdr := 0
	if !single {
		hdr++ // window descriptor
	}
	hdr += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcs := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	hdr += fcs
	checksum = fhd&4 != 0
	if len(src)-p < hdr {
		return p, 0, checksum, errors.New("truncated frame header")
	}
	p += hdr
	for {
		if len(src)-p < 3 {
			return p, bound, checksum, errors.New("truncated block header")
		}
		bh := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		p += 3
		last, size := bh&1 != 0, int(bh>>3)
		switch (bh >> 1) & 3 {
		case 0: // raw
			bound += uint64(size)
		case 1: // RLE: one byte repeated size times
			bound += uint64(size)
			size = 1
		case 2:
			bound += maxBlockOut
		default:
			return p, bound, checksum, errors.New("reserved block type")
		}
		if len(src)-p < size {
			return p, bound, checksum, errors.New("block runs past the data")
		}
		p += size
		if last {
			break
		}
	}
	if checksum {
		if len(src)-p < 4 {
			return p, bound, checksum, fmt.Errorf("the frame's checksum flag is set, but %d bytes follow its last block where its 4-byte checksum would be", len(src)-p)
		}
		p += 4
	}
	return p, bound, checksum, nil
}
