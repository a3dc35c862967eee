package zrec

import (
	"math"

	"github.com/klauspost/compress/huff0"
)

// Literals section (RFC 8878 3.1.1.3.1).
//
// Literals are Huffman coded with huff0, whose output (tree description,
// jump table for 4 streams, streams) is byte-compatible with zstd. A fresh
// table is written for every block (ReusePolicyNone): treeless literals
// would save ~30-60 bytes per block but tie blocks together.

const (
	// minHuffLits: below this a Huffman tree description costs more than
	// it can save; such literals are stored raw.
	minHuffLits = 32
	// maxSingleStream: the single-stream header has 10-bit sizes, and libzstd
	// will not take 4 streams for tiny inputs, so small sets use 1 stream.
	maxSingleStream = 1023

	litRaw        = 0
	litRLE        = 1
	litCompressed = 2
)

// appendLiterals appends the literals section for lits.
func (e *Encoder) appendLiterals(out, lits []byte) []byte {
	n := len(lits)
	if n < minHuffLits {
		return appendRawLits(out, lits)
	}
	if e.litGainShift != 0 && !huffmanPays(lits, e.litGainShift) {
		return appendRawLits(out, lits)
	}
	var comp []byte
	var err error
	e.huff.Reuse = huff0.ReusePolicyNone
	single := n <= maxSingleStream
	if single {
		comp, _, err = huff0.Compress1X(lits, &e.huff)
	} else {
		comp, _, err = huff0.Compress4X(lits, &e.huff)
	}
	switch {
	case err == huff0.ErrUseRLE:
		out = appendLitHeader(out, litRLE, n)
		return append(out, lits[0])
	case err != nil:
		return appendRawLits(out, lits)
	}
	c := len(comp)
	if c+5 >= n {
		// Not worth a header that can be 2-4 bytes longer than raw's.
		return appendRawLits(out, lits)
	}
	switch {
	case single:
		// Size_Format 00: one stream, 10-bit sizes, 3-byte header.
		h := uint32(litCompressed) | uint32(n)<<4 | uint32(c)<<14
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
	case n < 1<<14 && c < 1<<14:
		// Size_Format 10: four streams, 14-bit sizes, 4-byte header.
		h := uint32(litCompressed) | 2<<2 | uint32(n)<<4 | uint32(c)<<18
		out = append(out, byte(h), byte(h>>8), byte(h>>16), byte(h>>24))
	default:
		// Size_Format 11: four streams, 18-bit sizes, 5-byte header.
		h := uint64(litCompressed) | 3<<2 | uint64(n)<<4 | uint64(c)<<22
		out = append(out, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32))
	}
	return append(out, comp...)
}

func appendRawLits(out, lits []byte) []byte {
	out = appendLitHeader(out, litRaw, len(lits))
	return append(out, lits...)
}

// appendLitHeader writes a Raw or RLE literals header: 1 byte for sizes
// < 32 (5 bits), 2 bytes for < 4096 (12 bits), else 3 bytes (20 bits).
func appendLitHeader(out []byte, typ uint8, n int) []byte {
	switch {
	case n < 1<<5:
		return append(out, typ|byte(n)<<3)
	case n < 1<<12:
		return append(out, typ|1<<2|byte(n)<<4, byte(n>>4))
	default:
		return append(out, typ|3<<2|byte(n)<<4, byte(n>>4), byte(n>>12))
	}
}

// huffmanPays estimates, from the order-0 entropy of lits, whether Huffman
// coding saves at least len(lits)>>shift bytes. Building a table and coding
// four streams costs about as much as finding the block's matches; for
// literals that are mostly random argument bytes (W1's decode events: 8%
// saved) a fast level stores them raw instead, and keeps Huffman for
// literals it really shrinks (W1's fetch events: 33%). The estimate is the
// entropy plus a table description of half a byte per symbol and the
// 6-byte jump table; real Huffman coding is within ~1% of it.
func huffmanPays(lits []byte, shift uint8) bool {
	var c [4][256]uint32 // four tables: no store-to-load chains on runs
	n := len(lits)
	i := 0
	for ; i+4 <= n; i += 4 {
		c[0][lits[i]]++
		c[1][lits[i+1]]++
		c[2][lits[i+2]]++
		c[3][lits[i+3]]++
	}
	for ; i < n; i++ {
		c[0][lits[i]]++
	}
	sum, symbols := 0.0, 0
	for s := range 256 {
		if v := c[0][s] + c[1][s] + c[2][s] + c[3][s]; v != 0 {
			f := float64(v)
			sum += f * math.Log2(f)
			symbols++
		}
	}
	fn := float64(n)
	bits := fn*math.Log2(fn) - sum
	est := bits/8 + float64(symbols)/2 + 6
	return fn-est >= float64(n>>shift)
}
