package zrec

import (
	"encoding/binary"
	"math/bits"
)

// Structural match finding.
//
// An event is [args_size u16][record 24 bytes][args]; its format_id sits at
// event offset 10. Events of one format are nearly identical to the
// previous event of that format, so instead of hashing every position we
// compare each event with that predecessor at the distance d between them,
// 8 bytes at a time. Equal runs become matches with offset d, the rest
// literals. Runs that continue across an event boundary with the same d
// (tail of one event + head of the next) are merged into one match.

const (
	evHeader = 26 // args_size + record
	fmtSlots = 256

	// maxOffset keeps Offset_Code <= 30 (the largest klauspost decodes).
	maxOffset = 1 << 30

	// chunk is how many bytes are compared per mask; below 64 so that the
	// run filter has spare high bits.
	chunk = 56

	// minRun is the shortest run emitted as a match (the run filter in
	// findSequences already drops runs under 3 bytes that cannot grow).
	// Measured: 4 shaves 0.1% off W1 but costs 2.6% on mixed formats.
	minRun = minMatch
)

// fmtSlot remembers the last event of a format (tag-checked; collisions
// just overwrite). pos is the event start + 1 so that zero means empty.
type fmtSlot struct {
	pos  int
	id   uint32
	size uint32
}

// rawSeq is a sequence as found: literal length, match length, offset.
type rawSeq struct {
	ll, ml, off uint32
}

// findSequences parses events from start, fills e.seqs, e.lits and the
// histograms for one zstd block, and returns the block end. Blocks end on an
// event boundary at most 128 KiB after start (an event is at most 65561
// bytes, so this is always possible); an unparseable remainder is literals.
func (e *Encoder) findSequences(src []byte, start int) int {
	limit := min(len(src), start+maxBlockSize)
	if n := (limit-start)/minMatch + 1; cap(e.raw) < n {
		e.raw = make([]rawSeq, n)
		e.seqs = make([]seq, 0, n)
	}
	if cap(e.lits) < limit-start+16 {
		e.lits = make([]byte, 0, maxBlockSize+16)
	}
	// Hot state lives in locals; the loop below is the encoder's inner loop.
	raw := e.raw[:cap(e.raw)]
	lits := e.lits[:cap(e.lits)]
	ns, nl := 0, 0

	// The current run candidate [cStart, cEnd) at offset cOff; it becomes a
	// sequence once it is known to be complete and long enough.
	litStart := start
	cStart, cEnd, cOff := start, start, 0

	le := binary.LittleEndian
	p := start
	prevPos, prevSize := e.prevPos, e.prevSize
	st := e.stats
	for p+evHeader <= limit {
		sz := evHeader + int(binary.LittleEndian.Uint16(src[p:]))
		if p+sz > limit {
			break
		}
		// The block's event count and cycle range, which the writer needs
		// for the block header, come free with this parse.
		cyc := le.Uint64(src[p+2:])
		st.Events++
		st.MinCycle = min(st.MinCycle, cyc)
		st.MaxCycle = max(st.MaxCycle, cyc)
		st.parsedBytes += sz
		id := binary.LittleEndian.Uint32(src[p+10:])
		slot := &e.fmts[id&(fmtSlots-1)]
		q, qsz := prevPos, prevSize
		if slot.pos != 0 && slot.id == id {
			q, qsz = slot.pos-1, int(slot.size)
		}
		slot.pos, slot.id, slot.size = p+1, id, uint32(sz)
		prevPos, prevSize = p, sz

		if q < 0 || p-q > maxOffset {
			p += sz
			continue
		}
		d := p - q
		n := min(sz, qsz)
		for i := 0; i < n; i += chunk {
			k := min(n-i, chunk)
			a, b := p+i, q+i
			var eq uint64
			if a+64 <= len(src) {
				// Fixed 64-byte windows: constant indexes, no bounds
				// checks, no loop; bytes past k are masked off. Five
				// words cover the common event sizes (up to 40 bytes).
				sa, sb := src[a:a+64], src[b:b+64]
				eq = zeroBytes(le.Uint64(sa[0:])^le.Uint64(sb[0:])) |
					zeroBytes(le.Uint64(sa[8:])^le.Uint64(sb[8:]))<<8 |
					zeroBytes(le.Uint64(sa[16:])^le.Uint64(sb[16:]))<<16 |
					zeroBytes(le.Uint64(sa[24:])^le.Uint64(sb[24:]))<<24 |
					zeroBytes(le.Uint64(sa[32:])^le.Uint64(sb[32:]))<<32
				if k > 40 {
					eq |= zeroBytes(le.Uint64(sa[40:])^le.Uint64(sb[40:]))<<40 |
						zeroBytes(le.Uint64(sa[48:])^le.Uint64(sb[48:]))<<48
				}
				eq &= 1<<uint(k&63) - 1
			} else {
				eq = equalMaskSlow(src, a, b, k)
			}
			// Head: a run at the chunk start continues the candidate when
			// the candidate ends right here at the same distance (the tail
			// of the previous event plus the head of this one).
			if cEnd == a && cOff == d {
				h := bits.TrailingZeros64(^eq)
				cEnd += h
				if h >= k {
					continue // the whole chunk extends the candidate
				}
				eq &= ^uint64(0) << uint(h&63)
			}
			// Keep only runs of >= 3 (minMatch) bytes, plus a run touching
			// the chunk end, which may still grow into the next event:
			// pretend the bytes past the chunk are equal, find 3-byte
			// windows of equal bytes, and widen them back to the runs they
			// cover. This drops short runs without a branch per run.
			eqx := eq | ^uint64(0)<<uint(k&63)
			long := eqx & (eqx >> 1) & (eqx >> 2)
			keep := (long | long<<1 | long<<2) & eq
			for keep != 0 {
				s := bits.TrailingZeros64(keep)
				l := bits.TrailingZeros64(^(keep >> uint(s)))
				keep &= ^uint64(0) << uint((s+l)&63)
				if cEnd-cStart >= minRun {
					nl += copyLits(lits[nl:], src, litStart, cStart)
					r := &raw[ns]
					r.ll, r.ml, r.off = uint32(cStart-litStart), uint32(cEnd-cStart), uint32(cOff)
					ns++
					litStart = cEnd
				}
				cStart, cEnd, cOff = a+s, a+s+l, d
			}
		}
		p += sz
	}
	e.prevPos, e.prevSize = prevPos, prevSize
	e.stats = st

	end := limit
	if limit < len(src) && p > start && p+evHeader <= len(src) &&
		p+evHeader+int(binary.LittleEndian.Uint16(src[p:])) <= len(src) {
		// A well-formed event crosses the 128 KiB limit: end before it.
		end = p
	}
	if cEnd-cStart >= minRun {
		nl += copyLits(lits[nl:], src, litStart, cStart)
		raw[ns] = rawSeq{uint32(cStart - litStart), uint32(cEnd - cStart), uint32(cOff)}
		ns++
		litStart = cEnd
	}
	nl += copy(lits[nl:], src[litStart:end])
	e.lits = lits[:nl]
	e.codeSequences(raw[:ns])
	return end
}

// equalMaskSlow returns a mask with bit j set when src[a+j] == src[b+j],
// for j < k; used near the end of src, where 8-byte loads would overrun.
func equalMaskSlow(src []byte, a, b, k int) uint64 {
	var mask uint64
	for j := 0; j < k; j++ {
		if src[a+j] == src[b+j] {
			mask |= 1 << uint(j&63)
		}
	}
	return mask
}

// copyLits copies src[from:to] to dst and returns its length. Literal runs
// are short, so the common case is two unaligned 8-byte moves instead of
// a memmove call; dst has 16 bytes of slack for that.
func copyLits(dst, src []byte, from, to int) int {
	n := to - from
	if n <= 16 && from+16 <= len(src) && len(dst) >= 16 {
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src[from:]))
		binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[from+8:]))
		return n
	}
	return copy(dst, src[from:to])
}

// codeSequences turns the raw sequences into Offset_Values (tracking the
// repeat offsets), symbol codes and packed extra bits, and counts the codes.
func (e *Encoder) codeSequences(raw []rawSeq) {
	// Two sets of counters, used alternately, halve the store-to-load
	// dependency chains when consecutive sequences share codes.
	var hist [2][3][maxSymbolSize]uint32
	seqs := e.seqs[:len(raw)]
	rep0 := e.reps[0]
	for i, r := range raw {
		var ov uint32
		if r.ll != 0 && r.off == rep0 {
			ov = 1 // the usual case: same distance as the previous match
		} else {
			ov = e.offsetValue(r.off, r.ll)
			rep0 = e.reps[0]
		}
		mlb := r.ml - minMatch
		h := &hist[i&1]
		sq := &seqs[i]
		if ov == 1 && r.ll < 16 && mlb < 32 {
			// Short lengths at the repeated distance (most sequences in
			// event data): the codes are the values and there are no
			// extra bits.
			h[0][r.ll]++
			h[1][mlb]++
			h[2][0]++
			sq.extra = 0
			sq.ebits, sq.llc, sq.mlc, sq.ofc = 0, uint8(r.ll), uint8(mlb), 0
			continue
		}
		llc, mlc, ofc := llCode(r.ll), mlCode(mlb), ofCode(ov)
		h[0][llc&63]++
		h[1][mlc&63]++
		h[2][ofc&63]++
		lb, mb := llBits[llc&63]&31, mlBits[mlc&63]&31
		extra := uint64(r.ll&(1<<lb-1)) | uint64(mlb&(1<<mb-1))<<lb | uint64(ov&(1<<(ofc&31)-1))<<((lb+mb)&63)
		// Field by field: a composite literal is built on the stack and
		// copied, which stalls on store forwarding.
		sq.extra = extra
		sq.ebits, sq.llc, sq.mlc, sq.ofc = lb+mb+ofc, llc, mlc, ofc
	}
	for c := range maxSymbolSize {
		e.llHist[c] = hist[0][0][c] + hist[1][0][c]
		e.mlHist[c] = hist[0][1][c] + hist[1][1][c]
		e.ofHist[c] = hist[0][2][c] + hist[1][2][c]
	}
	e.seqs = seqs
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

// zeroBytes returns an 8-bit mask with bit j set when byte j of x is zero.
func zeroBytes(x uint64) uint64 {
	const lo7 = 0x7F7F7F7F7F7F7F7F
	t := ^((x&lo7 + lo7) | x | lo7) // high bit of each zero byte
	// Gather bit 8j+7 into bit 56+j; the products never collide or carry.
	return (t >> 7) * 0x0102040810204080 >> 56
}
