package zrec

import "math/bits"

// Symbol codes of the zstd sequences section (RFC 8878 section 3.1.1.3.2.1).
//
// Literal lengths and match lengths are mapped to a code plus a number of
// extra bits. Every code's baseline is a multiple of 1<<extraBits, so the
// extra-bits value is simply the low extraBits bits of the length; the bit
// writer masks, which is why no baseline tables are needed for encoding.

const (
	maxLLCode = 35 // largest Literals_Length_Code
	maxMLCode = 52 // largest Match_Length_Code
	maxOFCode = 30 // largest Offset_Code we ever produce (klauspost decodes <= 30)
	minMatch  = 3  // zstd MINMATCH
)

var (
	// llBits and mlBits give the extra bits per code. 64 entries so that
	// indexing with code&63 needs no bounds check.
	llBits [64]uint8
	mlBits [64]uint8

	// llCodeSmall maps literal lengths 0..63 to their code.
	llCodeSmall [64]uint8
	// mlCodeSmall maps match lengths minus 3 (0..127) to their code.
	mlCodeSmall [128]uint8
)

func init() {
	// Extra bits of codes 16..35 (LL) and 32..52 (ML), from the RFC tables.
	llHigh := []uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlHigh := []uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	copy(llBits[16:], llHigh)
	copy(mlBits[32:], mlHigh)

	// Derive the small-value code tables from the baselines so that the two
	// can never disagree.
	fill := func(dst []uint8, direct int, extra []uint8) {
		for v := 0; v < direct && v < len(dst); v++ {
			dst[v] = uint8(v)
		}
		base := direct
		for i, nb := range extra {
			for v := base; v < base+(1<<nb) && v < len(dst); v++ {
				dst[v] = uint8(direct + i)
			}
			base += 1 << nb
		}
	}
	fill(llCodeSmall[:], 16, llHigh)
	fill(mlCodeSmall[:], 32, mlHigh)
}

// llCode returns the Literals_Length_Code of a literal length.
func llCode(ll uint32) uint8 {
	if ll < 64 {
		return llCodeSmall[ll]
	}
	return uint8(bits.Len32(ll)) - 1 + 19
}

// mlCode returns the Match_Length_Code of mlBase = match length - 3.
func mlCode(mlBase uint32) uint8 {
	if mlBase < 128 {
		return mlCodeSmall[mlBase]
	}
	return uint8(bits.Len32(mlBase)) - 1 + 36
}

// ofCode returns the Offset_Code of an Offset_Value (>= 1); it is also the
// number of extra bits.
func ofCode(ov uint32) uint8 {
	return uint8(bits.Len32(ov)) - 1
}
