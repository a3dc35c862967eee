package zrec

import (
	"encoding/binary"
	"math/bits"
)

// XXH64 with seed 0: zstd's content checksum is its low 32 bits
// (RFC 8878 3.1.1: Content_Checksum). Four independent lanes of 8 bytes per
// 32-byte stripe keep the multiplier busy: about 4 bytes a cycle, a few
// microseconds per 64 KiB block.

const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261

	xxInit1 uint64 = 6983438078262162902 // xxPrime1 + xxPrime2, mod 2^64
	xxInit4 uint64 = 7046029288634856825 // -xxPrime1, mod 2^64
)

func xxRound(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*xxPrime2, 31) * xxPrime1
}

func xxMerge(h, v uint64) uint64 {
	return (h^xxRound(0, v))*xxPrime1 + xxPrime4
}

// xxh64 returns XXH64(b, seed 0).
func xxh64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		v := [4]uint64{xxInit1, xxPrime2, 0, xxInit4}
		b = b[xxh64Lanes(b, &v):]
		v1, v2, v3, v4 := v[0], v[1], v[2], v[3]
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMerge(h, v1)
		h = xxMerge(h, v2)
		h = xxMerge(h, v3)
		h = xxMerge(h, v4)
	} else {
		h = xxPrime5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b[:8]))
		h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b[:4])) * xxPrime1
		h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * xxPrime5
		h = bits.RotateLeft64(h, 11) * xxPrime1
	}
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}
