package zrec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
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
//
// Each sequence is coded as it is found (code.go's work: repeat offsets,
// symbol codes, extra bits, histograms), so the sequences section only has
// to build its tables and write the bitstream.
//
// The loop is the encoder's hot path: most events are compared through
// unsafe loads of 64-byte windows that are known to lie inside src (events
// that start at least fastTail bytes before its end), without bounds
// checks; the rest, and events whose size differs from their
// predecessor's or exceeds fastMax, take the checked path (slowEvent).

const (
	evHeader = 26 // args_size + record
	fmtSlots = 256

	// maxOffset keeps Offset_Code <= 30 (the largest klauspost decodes).
	maxOffset = 1 << 30

	// chunk is how many bytes are compared per mask; below 64 so that the
	// run filter has spare high bits.
	chunk = 56

	// fastMax is the largest event the unchecked path compares (one mask);
	// fastTail: an event starting at p with p+fastTail <= len(src) may be
	// read 64 bytes at a time from p and from any earlier event, and its
	// literals (which end at most fastMax bytes after p) copied 16 bytes
	// at a time.
	fastMax  = chunk
	fastTail = fastMax + 16 + 8

	// litSlack is the spare room after the literals buffer for 16-byte
	// literal copies.
	litSlack = 16

	// minRun is the shortest run emitted as a match (the run filter
	// drops runs under 3 bytes that cannot grow). Measured: 4 shaves 0.1%
	// off W1 but costs 2.6% on mixed formats.
	minRun = minMatch
)

// fmtSlot remembers the last event of a format (tag-checked; collisions
// just overwrite). pos is the event start + 1 so that zero means empty.
type fmtSlot struct {
	pos  int
	id   uint32
	size uint32
}

// matchState is the match finder's state between events: the pending
// literals start, the current run candidate [cStart, cEnd) at offset cOff
// (it becomes a sequence once it is known to be complete and long enough),
// and the sequences and literals so far.
type matchState struct {
	litStart, cStart, cEnd, cOff int
	ns, nl                       int
}

// matchRegs is the match finder's state as the assembly loop reads and
// writes it (its own copy of findSequences' locals, at event boundaries).
type matchRegs struct {
	fastEnd                      int
	p                            int
	litStart, cStart, cEnd, cOff int
	nl, ns                       int
	prevPos, prevSize            int
	events                       int
	minC, maxC                   uint64
}

// le8 returns the little-endian uint64 at p.
func le8(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) }

// findSequences parses events from start, codes the sequences of one zstd
// block into e.seqs, its literals into e.lits and the code histograms, and
// returns the block end. Blocks end on an event boundary at most 128 KiB
// after start (an event is at most 65561 bytes, so this is always
// possible); an unparseable remainder is literals.
func (e *Encoder) findSequences(src []byte, start int) int {
	limit := min(len(src), start+maxBlockSize)
	if n := (limit-start)/minMatch + 1; cap(e.seqs) < n {
		e.seqs = e.newSeqs(n)
	}
	if cap(e.lits) < maxBlockSize+litSlack {
		e.lits = e.newLits(maxBlockSize + litSlack)
	}
	e.llHist, e.mlHist, e.ofHist = [maxSymbolSize]uint32{}, [maxSymbolSize]uint32{}, [maxSymbolSize]uint32{}
	seqs := e.seqs[:cap(e.seqs)]
	lits := e.lits[:cap(e.lits)]
	ms := matchState{litStart: start, cStart: start, cEnd: start}
	if len(src) == 0 {
		e.lits, e.seqs = lits[:0], seqs[:0]
		return 0
	}

	// Hot state lives in locals; the loop below is the encoder's inner loop.
	base := unsafe.Pointer(unsafe.SliceData(src))
	lbase := unsafe.Pointer(unsafe.SliceData(lits))
	sbase := unsafe.Pointer(unsafe.SliceData(seqs))
	// Events at p <= fastEnd take the unchecked path: there 64-byte windows
	// stay inside src, and an event of at most fastMax bytes inside the
	// block (which may end before src does).
	fastEnd := min(len(src)-fastTail, limit-fastMax)
	litStart, cStart, cEnd, cOff := ms.litStart, ms.cStart, ms.cEnd, ms.cOff
	ns, nl := 0, 0
	rep0 := e.reps[0]
	prevPos, prevSize := e.prevPos, e.prevSize
	events, minC, maxC := 0, e.stats.MinCycle, e.stats.MaxCycle
	p := start
	for p+evHeader <= limit {
		if useMatchAsm && p <= fastEnd {
			// The assembly loop takes the events it can (match_amd64.s)
			// and returns at the first it cannot, which the code below
			// handles. It stops at maxOffset too, so that it never has to
			// check a distance (one is at most p).
			e.mr = matchRegs{fastEnd: min(fastEnd, maxOffset), p: p,
				litStart: litStart, cStart: cStart, cEnd: cEnd, cOff: cOff, nl: nl, ns: ns,
				prevPos: prevPos, prevSize: prevSize, events: events, minC: minC, maxC: maxC}
			e.reps[0] = rep0
			matchAsm(e, base, lbase, sbase)
			r := &e.mr
			litStart, cStart, cEnd, cOff, nl, ns = r.litStart, r.cStart, r.cEnd, r.cOff, r.nl, r.ns
			prevPos, prevSize, events, minC, maxC = r.prevPos, r.prevSize, r.events, r.minC, r.maxC
			rep0 = e.reps[0]
			if r.p != p {
				p = r.p
				continue
			}
		}
		ev := unsafe.Add(base, p)
		sz := evHeader + int(binary.LittleEndian.Uint16((*[2]byte)(ev)[:]))
		if p+sz > limit {
			break
		}
		// The block's event count and cycle range, which the writer needs
		// for the block header, come free with this parse.
		cyc := le8(unsafe.Add(ev, 2))
		events++
		minC, maxC = min(minC, cyc), max(maxC, cyc)
		id := binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(ev, 10))[:])
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
		if p > fastEnd || sz != qsz || sz > fastMax {
			ms = matchState{litStart, cStart, cEnd, cOff, ns, nl}
			e.reps[0] = rep0
			e.slowEvent(src, p, q, sz, qsz, &ms)
			litStart, cStart, cEnd, cOff, ns, nl = ms.litStart, ms.cStart, ms.cEnd, ms.cOff, ms.ns, ms.nl
			rep0 = e.reps[0]
			p += sz
			continue
		}
		// One mask of the event's bytes equal to its predecessor's: fixed
		// 64-byte windows (both inside src: p <= fastEnd), bytes past sz
		// masked off. Bytes 8..24 (high cycle bytes, format, category,
		// source, argument count, padding) are nearly always all equal:
		// one test for both words saves their masks.
		pq := unsafe.Add(base, q)
		eq := zeroBytes(le8(ev) ^ le8(pq))
		if x1, x2 := le8(unsafe.Add(ev, 8))^le8(unsafe.Add(pq, 8)), le8(unsafe.Add(ev, 16))^le8(unsafe.Add(pq, 16)); x1|x2 == 0 {
			eq |= 0xFFFF << 8
		} else {
			eq |= zeroBytes(x1)<<8 | zeroBytes(x2)<<16
		}
		eq |= zeroBytes(le8(unsafe.Add(ev, 24))^le8(unsafe.Add(pq, 24)))<<24 |
			zeroBytes(le8(unsafe.Add(ev, 32))^le8(unsafe.Add(pq, 32)))<<32
		if sz > 40 {
			eq |= zeroBytes(le8(unsafe.Add(ev, 40))^le8(unsafe.Add(pq, 40)))<<40 |
				zeroBytes(le8(unsafe.Add(ev, 48))^le8(unsafe.Add(pq, 48)))<<48
		}
		eq &= 1<<uint(sz&63) - 1
		// Head: a run at the event start continues the candidate when the
		// candidate ends right here at the same distance (the tail of the
		// previous event plus the head of this one).
		if cEnd == p && cOff == d {
			h := bits.TrailingZeros64(^eq)
			cEnd += h
			if h >= sz {
				p += sz
				continue // the whole event extends the candidate
			}
			eq &= ^uint64(0) << uint(h&63)
		}
		// Keep only runs of >= 3 (minMatch) bytes, plus a run touching the
		// event end, which may still grow into the next event: pretend the
		// bytes past the end are equal, find 3-byte windows of equal bytes,
		// and widen them back to the runs they cover. This drops short runs
		// without a branch per run.
		eqx := eq | ^uint64(0)<<uint(sz&63)
		long := eqx & (eqx >> 1) & (eqx >> 2)
		keep := (long | long<<1 | long<<2) & eq
		if keep == 0 {
			p += sz
			continue
		}
		// The runs, by their first and last bytes. Every run but the last
		// is complete (and >= 3 bytes): a sequence. The last becomes the
		// candidate, which the next event may extend. The candidate before
		// this event's first run is complete too, if long enough.
		starts, ends := keep&^(keep<<1), keep&^(keep>>1)
		rs, re := cStart, cEnd
		emitRun := re-rs >= minRun
		for {
			if emitRun {
				// Emit [rs, re) at cOff: its literals (16 bytes copied at
				// once: in the fast region src has them, lits has slack),
				// then its codes.
				ll := rs - litStart
				*(*[16]byte)(unsafe.Add(lbase, nl)) = *(*[16]byte)(unsafe.Add(base, litStart))
				if ll > 16 {
					copy(lits[nl+16:], src[litStart+16:rs])
				}
				nl += ll
				mlb := uint32(re-rs) - minMatch
				sq := (*seq)(unsafe.Add(sbase, uintptr(ns)*unsafe.Sizeof(seq{})))
				ns++
				if uint(ll-1) < 15 && uint32(cOff) == rep0 && mlb < 32 {
					// The usual case: a few literals, then a short match
					// at the repeated distance: the codes are the values,
					// no extra bits, Offset_Value 1 (rep0).
					sq.extra, sq.code = 0, uint32(ll)|mlb<<8
					e.llHist[ll&63]++
					e.mlHist[mlb&63]++
					e.ofHist[0]++
				} else {
					e.codeSeq(sq, uint32(ll), mlb, uint32(cOff))
					rep0 = e.reps[0]
				}
				litStart = re
			}
			rs = p + bits.TrailingZeros64(starts)
			re = p + bits.TrailingZeros64(ends) + 1
			cOff = d
			if starts &= starts - 1; starts == 0 {
				break
			}
			ends &= ends - 1
			emitRun = true
		}
		cStart, cEnd = rs, re
		p += sz
	}
	e.prevPos, e.prevSize = prevPos, prevSize
	e.reps[0] = rep0
	e.stats.Events += events
	e.stats.MinCycle, e.stats.MaxCycle = minC, maxC
	e.stats.parsedBytes += p - start

	end := limit
	if limit < len(src) && p > start && p+evHeader <= len(src) &&
		p+evHeader+int(binary.LittleEndian.Uint16(src[p:])) <= len(src) {
		// A well-formed event crosses the 128 KiB limit: end before it.
		end = p
	}
	ms = matchState{litStart, cStart, cEnd, cOff, ns, nl}
	if ms.cEnd-ms.cStart >= minRun {
		e.emit(src, lits, &ms)
	}
	ms.nl += copy(lits[ms.nl:], src[ms.litStart:end])
	e.lits = lits[:ms.nl]
	e.seqs = seqs[:ms.ns]
	return end
}

// slowEvent compares the event at p (sz bytes) with its predecessor at q
// (qsz bytes) with bounds-checked loads, a chunk of up to 56 bytes at a
// time, over their common prefix: the events near the end of src, events
// of a format whose size changed (strings), and events over fastMax bytes.
func (e *Encoder) slowEvent(src []byte, p, q, sz, qsz int, ms *matchState) {
	le := binary.LittleEndian
	d := p - q
	n := min(sz, qsz)
	for i := 0; i < n; i += chunk {
		k := min(n-i, chunk)
		a, b := p+i, q+i
		var eq uint64
		if a+64 <= len(src) {
			sa, sb := src[a:a+64], src[b:b+64]
			eq = zeroBytes(le.Uint64(sa[0:])^le.Uint64(sb[0:])) |
				zeroBytes(le.Uint64(sa[8:])^le.Uint64(sb[8:]))<<8 |
				zeroBytes(le.Uint64(sa[16:])^le.Uint64(sb[16:]))<<16 |
				zeroBytes(le.Uint64(sa[24:])^le.Uint64(sb[24:]))<<24 |
				zeroBytes(le.Uint64(sa[32:])^le.Uint64(sb[32:]))<<32 |
				zeroBytes(le.Uint64(sa[40:])^le.Uint64(sb[40:]))<<40 |
				zeroBytes(le.Uint64(sa[48:])^le.Uint64(sb[48:]))<<48
			eq &= 1<<uint(k&63) - 1
		} else {
			eq = equalMaskSlow(src, a, b, k)
		}
		if ms.cEnd == a && ms.cOff == d {
			h := bits.TrailingZeros64(^eq)
			ms.cEnd += h
			if h >= k {
				continue // the whole chunk extends the candidate
			}
			eq &= ^uint64(0) << uint(h&63)
		}
		eqx := eq | ^uint64(0)<<uint(k&63)
		long := eqx & (eqx >> 1) & (eqx >> 2)
		keep := (long | long<<1 | long<<2) & eq
		for keep != 0 {
			s := bits.TrailingZeros64(keep)
			l := bits.TrailingZeros64(^(keep >> uint(s&63)))
			keep &= ^uint64(0) << uint((s+l)&63)
			if ms.cEnd-ms.cStart >= minRun {
				e.emit(src, e.lits[:cap(e.lits)], ms)
			}
			ms.cStart, ms.cEnd, ms.cOff = a+s, a+s+l, d
		}
	}
}

// emit turns the candidate into a sequence: its literals, then its codes.
func (e *Encoder) emit(src, lits []byte, ms *matchState) {
	ms.nl += copy(lits[ms.nl:], src[ms.litStart:ms.cStart])
	e.codeSeq(&e.seqs[:cap(e.seqs)][ms.ns], uint32(ms.cStart-ms.litStart), uint32(ms.cEnd-ms.cStart)-minMatch, uint32(ms.cOff))
	ms.ns++
	ms.litStart = ms.cEnd
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

// zeroBytes returns an 8-bit mask with bit j set when byte j of x is zero.
func zeroBytes(x uint64) uint64 {
	const lo7 = 0x7F7F7F7F7F7F7F7F
	t := ^((x&lo7 + lo7) | x | lo7) // high bit of each zero byte
	// Gather bit 8j+7 into bit 56+j; the products never collide or carry.
	return (t >> 7) * 0x0102040810204080 >> 56
}
