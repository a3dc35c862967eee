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
	const maxBlockOut = 128 << 10
	var bound uint64
	for p := 0; p < len(src); {
		if len(src)-p < 4 || p > 0 && !isFrameStart(src[p:]) {
			// What a frame whose checksum flag was cleared leaves: its
			// 4-byte checksum after its end.
			return bound, fmt.Errorf("the frames end at byte %d, and %d bytes that are not a zstd frame follow", p, len(src)-p)
		}
		magic := binary.LittleEndian.Uint32(src[p:])
		if magic&skippableMask == skippableBase {
			if len(src)-p < 8 {
				return bound, errors.New("truncated skippable frame")
			}
			n := uint64(binary.LittleEndian.Uint32(src[p+4:]))
			if n > uint64(len(src)-p-8) {
				return bound, errors.New("skippable frame runs past the data")
			}
			p += 8 + int(n)
			continue
		}
		if magic != frameMagic {
			return bound, errors.New("not a zstd frame")
		}
		p += 4
		if p >= len(src) {
			return bound, errors.New("truncated frame header")
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
		checksum := fhd&4 != 0
		if len(src)-p < hdr {
			return bound, errors.New("truncated frame header")
		}
		p += hdr
		for {
			if len(src)-p < 3 {
				return bound, errors.New("truncated block header")
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
				return bound, errors.New("reserved block type")
			}
			if len(src)-p < size {
				return bound, errors.New("block runs past the data")
			}
			p += size
			if last {
				break
			}
		}
		if checksum {
			if len(src)-p < 4 {
				return bound, fmt.Errorf("the frame's checksum flag is set, but %d bytes follow its last block where its 4-byte checksum would be", len(src)-p)
			}
			p += 4
		}
	}
	return bound, nil
}
