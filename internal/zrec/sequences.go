package zrec

import "encoding/binary"

// Sequences section (RFC 8878 3.1.1.3.2): Number_of_Sequences, the
// Symbol_Compression_Modes byte, the LL/OF/ML table descriptions and one
// backward bitstream holding every sequence.

// seq is one zstd sequence, reduced at match time to what the bitstream
// needs: the extra bits of LL, ML and OF packed LSB first in that order (at
// most 16+16+30 = 62 bits), and code = LL code | ML code<<8 | OF code<<16 |
// number of extra bits<<24.
type seq struct {
	extra uint64
	code  uint32
}

// seqTables holds the three tables of a block side by side so the encoding
// loop addresses all of them from one base register, and lowMask[k], the
// low k bits set (a load instead of a variable shift, which on amd64 must
// go through CL, in the hot loop).
type seqTables struct {
	ll, ml, of fseTable
	lowMask    [32]uint32
}

func (t *seqTables) init() {
	for k := range t.lowMask {
		t.lowMask[k] = 1<<k - 1
	}
}

// seqTableLogMax caps the accuracy of our sequence tables below the
// format's 9: a 512-cell table costs twice the building of a 256-cell one
// for blocks of a few thousand sequences over a few dozen codes, where it
// saved 0.01% (W1) to 0.06% (pipeline workload) of the bytes.
const seqTableLogMax = 8

const (
	modePredefined = 0
	modeRLE        = 1
	modeFSE        = 2
)

// symKind describes one symbol type (LL, OF or ML).
type symKind struct {
	maxLog    uint8
	predef    []int16
	predefLog uint8
	predefTab *fseTable
}

var (
	llKind = symKind{llMaxLog, llPredef, llPredefLog, &llPredefTable}
	ofKind = symKind{ofMaxLog, ofPredef, ofPredefLog, &ofPredefTable}
	mlKind = symKind{mlMaxLog, mlPredef, mlPredefLog, &mlPredefTable}
)

// chooseTable picks the cheapest mode for hist, appends its table
// description (if any) to out and leaves the encoding table in own.
// With allowFSE false only RLE and Predefined are used; ok is false if
// neither can represent hist.
func chooseTable(out []byte, k *symKind, hist []uint32, nbSeq uint32, own *fseTable,
	norm *[maxSymbolSize]int16, cache *tableCache, allowFSE bool) (_ []byte, mode uint8, ok bool) {
	maxSym, distinct := 0, 0
	for s, h := range hist {
		if h != 0 {
			maxSym = s
			distinct++
		}
	}
	if distinct == 1 {
		// One symbol: RLE mode, zero bits per sequence.
		for i := range norm[:maxSym] {
			norm[i] = 0
		}
		norm[maxSym] = 1
		own.build(norm[:maxSym+1], 0)
		return append(out, byte(maxSym)), modeRLE, true
	}
	preCost, preOK := cost(hist, k.predef, k.predefLog)
	if allowFSE {
		tl := optimalTableLog(min(k.maxLog, seqTableLogMax), nbSeq, maxSym)
		normalize(norm[:maxSym+1], hist[:maxSym+1], nbSeq, tl)
		start := len(out)
		out = appendNCount(out, norm[:maxSym+1], tl)
		fseCost, _ := cost(hist, norm[:maxSym+1], tl)
		fseCost += uint64(len(out)-start) * 8 << 8
		if !preOK || fseCost < preCost {
			cache.build(own, norm[:maxSym+1], tl)
			return out, modeFSE, true
		}
		out = out[:start]
	}
	if preOK {
		*own = *k.predefTab
	}
	return out, modePredefined, preOK
}

// appendSeqCount writes Number_of_Sequences (1, 2 or 3 bytes).
func appendSeqCount(out []byte, n int) []byte {
	switch {
	case n < 128:
		return append(out, byte(n))
	case n < 0x7F00:
		return append(out, byte(n>>8)+0x80, byte(n))
	default:
		n -= 0x7F00
		return append(out, 0xFF, byte(n), byte(n>>8))
	}
}

// appendSequences appends the sequences section. out must have capacity for
// limit+24 bytes; ok is false if the section would make len(out) exceed
// limit (the caller then stores the block raw).
func (e *Encoder) appendSequences(out []byte, limit int) (_ []byte, ok bool) {
	seqs := e.seqs
	start := len(out)
	tabs := &e.tabs
	for _, allowFSE := range [2]bool{true, false} {
		out = out[:start]
		out = appendSeqCount(out, len(seqs))
		if len(seqs) == 0 {
			return out, true
		}
		nb := uint32(len(seqs))
		modePos := len(out)
		out = append(out, 0)
		var llM, ofM, mlM uint8
		var okL, okO, okM bool
		lastTable := -1 // start of the last FSE table description
		p := len(out)
		out, llM, okL = chooseTable(out, &llKind, e.llHist[:maxLLCode+1], nb, &tabs.ll, &e.norm, &e.tcache, allowFSE)
		if llM == modeFSE {
			lastTable = p
		}
		p = len(out)
		out, ofM, okO = chooseTable(out, &ofKind, e.ofHist[:maxOFCode+1], nb, &tabs.of, &e.norm, &e.tcache, allowFSE)
		if ofM == modeFSE {
			lastTable = p
		}
		p = len(out)
		out, mlM, okM = chooseTable(out, &mlKind, e.mlHist[:maxMLCode+1], nb, &tabs.ml, &e.norm, &e.tcache, allowFSE)
		if mlM == modeFSE {
			lastTable = p
		}
		if !okL || !okO || !okM || len(out) > limit {
			return out, false
		}
		out[modePos] = llM<<6 | ofM<<4 | mlM<<2
		end, fits := encodeSeqs(out[:cap(out)], len(out), limit, seqs, tabs)
		if !fits {
			return out, false
		}
		// klauspost's decoder reads a table description 4 bytes at a time
		// and wants that many bytes left in the block; with a tiny bitstream
		// after the last table, fall back to predefined tables.
		if lastTable >= 0 && end-lastTable < 4 {
			continue
		}
		return out[:end], true
	}
	return out, false
}

// encodeSeqs writes the backward bitstream at out[start:] and returns its
// end; false if it passed limit. Order (the decoder reads it backwards):
// states are initialised with the last sequence, whose extra bits come
// first; then for each earlier sequence the OF, ML, LL state transitions
// followed by its LL, ML, OF extra bits (seqLoop); finally the ML, OF, LL
// states and the end mark. out must have 24 bytes of room past limit.
func encodeSeqs(out []byte, start, limit int, seqs []seq, tabs *seqTables) (int, bool) {
	n := len(seqs)
	last := seqs[n-1]
	st := seqState{
		ll: uint64(tabs.ll.initState(uint8(last.code))),
		ml: uint64(tabs.ml.initState(uint8(last.code >> 8))),
		of: uint64(tabs.of.initState(uint8(last.code >> 16))),
	}
	c, nbits, pos := last.extra, uint(last.code>>24), start
	binary.LittleEndian.PutUint64(out[pos:], c)
	pos += int(nbits >> 3)
	st.c = c >> ((nbits >> 3 << 3) & 63) // ebits <= 62: never a full 64-bit shift
	st.nbits = uint64(nbits & 7)
	if n > 1 {
		if pos = seqLoop(out, pos, limit, seqs[:n-1], tabs, &st); pos > limit {
			return pos, false
		}
	}
	bw := bitWriter{c: st.c, n: uint(st.nbits), out: out, pos: pos}
	bw.add(uint32(st.ml), tabs.ml.tableLog)
	bw.add(uint32(st.of), tabs.of.tableLog)
	bw.add(uint32(st.ll), tabs.ll.tableLog)
	bw.close()
	return bw.pos, bw.pos <= limit
}

// seqState is the bitstream writer's state between encodeSeqs and its loop:
// the pending bits (c, nbits <= 7 between sequences) and the three FSE
// states.
type seqState struct {
	c, nbits   uint64
	ll, ml, of uint64
}

// seqLoopGo is seqLoop in Go (seqs_generic.go, seqs_amd64.go choose): it
// writes seqs[len-1] down to seqs[0] (each: the OF, ML, LL state
// transitions, then its LL, ML, OF extra bits, then whole bytes spilled)
// from out[pos:] and returns the new pos, or a pos past limit as soon as
// the stream passes it (out has 24 bytes of room past limit).
func seqLoopGo(out []byte, pos, limit int, seqs []seq, tabs *seqTables, st *seqState) int {
	c, nbits := st.c, uint(st.nbits)
	llS, mlS, ofS := uint32(st.ll), uint32(st.ml), uint32(st.of)
	// Shift counts are masked (&63, &31) so the compiler emits plain shifts
	// without Go's fix-ups for counts >= the operand width. nbits stays
	// below 64 throughout: <= 7 after a flush, + at most 26 state bits,
	// + extras only if they fit (else the slow path spills first).
	for i := len(seqs) - 1; i >= 0; i-- {
		s := &seqs[i]
		code := s.code
		t := tabs.of.tt[(code>>16)&(maxSymbolSize-1)]
		k := (ofS + t.deltaNbBits) >> 16 & 31
		c |= uint64(ofS&tabs.lowMask[k]) << (nbits & 63)
		nbits += uint(k)
		ofS = uint32(tabs.of.st[(int32(ofS>>k)+t.deltaFindState)&(maxTableSize-1)])

		t = tabs.ml.tt[(code>>8)&(maxSymbolSize-1)]
		k = (mlS + t.deltaNbBits) >> 16 & 31
		c |= uint64(mlS&tabs.lowMask[k]) << (nbits & 63)
		nbits += uint(k)
		mlS = uint32(tabs.ml.st[(int32(mlS>>k)+t.deltaFindState)&(maxTableSize-1)])

		t = tabs.ll.tt[code&(maxSymbolSize-1)]
		k = (llS + t.deltaNbBits) >> 16 & 31
		c |= uint64(llS&tabs.lowMask[k]) << (nbits & 63)
		nbits += uint(k)
		llS = uint32(tabs.ll.st[(int32(llS>>k)+t.deltaFindState)&(maxTableSize-1)])

		if pos > limit {
			return pos
		}
		eb := uint(code >> 24)
		if eb > 64-34 {
			// Long lengths or offsets (rare): spill, then write the extras in
			// two halves so the container never overflows.
			binary.LittleEndian.PutUint64(out[pos:], c)
			pos += int(nbits >> 3)
			c >>= (nbits >> 3 << 3) & 63
			nbits &= 7
			if eb > 32 {
				c |= (s.extra & 0xFFFFFFFF) << (nbits & 63)
				nbits += 32
				binary.LittleEndian.PutUint64(out[pos:], c)
				pos += int(nbits >> 3)
				c >>= (nbits >> 3 << 3) & 63
				nbits &= 7
				c |= (s.extra >> 32) << (nbits & 63)
				nbits += eb - 32
			} else {
				c |= s.extra << (nbits & 63)
				nbits += eb
			}
		} else {
			c |= s.extra << (nbits & 63)
			nbits += eb
		}
		binary.LittleEndian.PutUint64(out[pos:], c)
		pos += int(nbits >> 3)
		c >>= (nbits >> 3 << 3) & 63
		nbits &= 7
	}
	st.c, st.nbits = c, uint64(nbits)
	st.ll, st.ml, st.of = uint64(llS), uint64(mlS), uint64(ofS)
	return pos
}
