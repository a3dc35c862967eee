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
	codeTables = codeTabs{llCode: llCodeSmall, mlCode: mlCodeSmall, llBits: llBits, mlBits: mlBits}
	for mlb, c := range mlCodeSmall {
		nb := mlBits[c]
		codeTables.mlSeq[mlb] = uint32(c)<<8 | uint32(nb)<<24
		codeTables.mlExtra[mlb] = uint8(mlb & (1<<nb - 1))
	}
}

// codeTabs are the small-value tables together, as the assembly match
// loop reads them (each Encoder has a copy, addressed from its pointer).
type codeTabs struct {
	llCode [64]uint8
	mlCode [128]uint8
	llBits [64]uint8
	mlBits [64]uint8
	// For match lengths minus 3 below 128 after 1..15 literals at rep0
	// (no literal or offset extra bits): the sequence's code word but for
	// the literal length (ML code<<8 | extra bits<<24), and its extra bits.
	mlSeq   [128]uint32
	mlExtra [128]uint8
}

var codeTables codeTabs // filled by init, after the tables

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

// codeSeq codes one sequence, ll literals then a match of mlb+minMatch
// bytes at offset off, into sq: its Offset_Value (tracking the repeat
// offsets exactly as the decoder will), its three symbol codes and their
// extra bits, and counts the codes in the block's histograms. The match
// finder codes the common case (a few literals, a short match at rep0)
// inline and calls this for the rest.
func (e *Encoder) codeSeq(sq *seq, ll, mlb, off uint32) {
	ov := e.offsetValue(off, ll)
	llc, mlc, ofc := llCode(ll), mlCode(mlb), ofCode(ov)
	e.llHist[llc&63]++
	e.mlHist[mlc&63]++
	e.ofHist[ofc&63]++
	lb, mb := llBits[llc&63]&31, mlBits[mlc&63]&31
	sq.extra = uint64(ll&(1<<lb-1)) | uint64(mlb&(1<<mb-1))<<lb | uint64(ov&(1<<(ofc&31)-1))<<((lb+mb)&63)
	sq.code = uint32(llc) | uint32(mlc)<<8 | uint32(ofc)<<16 | uint32(lb+mb+ofc)<<24
}

// offsetValue returns the Offset_Value for a match at offset off after ll
// literals and updates the repeat offsets exactly as the decoder will:
// with ll > 0 the values 1..3 mean rep0..rep2; with ll == 0 they mean
// rep1, rep2 and rep0-1; any other value is a new offset (off+3). A used
// repeat offset moves to the front, a new one pushes rep0 -> rep1 -> rep2.
func (e *Encoder) offsetValue(off, ll uint32) uint32 {
	r := &e.reps
	if ll != 0 {
		switch off {
		case r[0]:
			return 1
		case r[1]:
			r[1], r[0] = r[0], off
			return 2
		case r[2]:
			r[2], r[1], r[0] = r[1], r[0], off
			return 3
		}
	} else {
		switch off {
		case r[1]:
			r[1], r[0] = r[0], off
			return 1
		case r[2]:
			r[2], r[1], r[0] = r[1], r[0], off
			return 2
		case r[0] - 1:
			r[2], r[1], r[0] = r[1], r[0], off
			return 3
		}
	}
	r[2], r[1], r[0] = r[1], r[0], off
	return off + 3
}
