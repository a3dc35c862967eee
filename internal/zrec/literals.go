package zrec

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"github.com/klauspost/compress/fse"
)

// Literals section (RFC 8878 3.1.1.3.1).
//
// Literals are Huffman coded with a table built for the block (no treeless
// literals: they would tie blocks together): the histogram is counted once,
// the code lengths come from a sort of the present symbols and the in-place
// minimum-redundancy construction of Moffat and Katajainen, limited to 11
// bits, and the exact compressed size is known before anything is written,
// so the choice between raw and Huffman-coded literals costs no trial
// encoding. The table description (the symbols' weights) is FSE compressed
// by klauspost's fse package, as its huff0 does, or written 4 bits a weight.
// One stream is used up to 1023 literals (the 10-bit single-stream header,
// and libzstd refuses 4 streams for tiny inputs), four above. Single-valued
// literals are stored as RLE, fewer than 32 always raw.

const (
	// minHuffLits: below this a Huffman tree description costs more than
	// it can save; such literals are stored raw.
	minHuffLits = 32
	// maxSingleStream: the single-stream header has 10-bit sizes.
	maxSingleStream = 1023
	// huffMaxBits is the longest Huffman code zstd allows.
	huffMaxBits = 11

	litRaw        = 0
	litRLE        = 1
	litCompressed = 2
)

// huffScratch is the Huffman encoder's reusable state.
type huffScratch struct {
	count   [4][256]uint32 // four histograms: no store-to-load chains on runs
	keys    [256]uint32    // count<<8 | symbol of the present symbols, sorted
	tmp     [256]uint32    // the radix sort's other buffer
	depth   [256]uint32    // the construction's work array, then code lengths
	val     [256]uint64    // each symbol's code (LSB first, as the bit writer adds it)
	nbits   [256]uint8     // ... and its length
	lens    [256]uint64    // the lengths again, as the assembly loop adds them
	weights [256]uint8
	n       int    // distinct symbols: keys[:n], depth[:n]
	desc    []byte // the table description
	fse     fse.Scratch
}

// appendLiterals appends the literals section for lits: Huffman coded when
// that saves at least len(lits)>>litGainShift bytes (any saving with shift
// 0), RLE when single-valued, else raw.
func (e *Encoder) appendLiterals(out, lits []byte) []byte {
	n := len(lits)
	if n < minHuffLits {
		return appendRawLits(out, lits)
	}
	if e.litGainShift != 0 && n >= 4*litSample && !e.huff.samplePays(lits, n>>e.litGainShift) {
		return appendRawLits(out, lits)
	}
	return e.appendCounted(out, lits)
}

// appendCounted is appendLiterals after the sample: the literals counted,
// coded if that saves what the gain shift asks, else raw or RLE.
func (e *Encoder) appendCounted(out, lits []byte) []byte {
	n := len(lits)
	h := &e.huff
	sum, maxSym, distinct := h.histogram(lits)
	if distinct == 1 {
		out = appendLitHeader(out, litRLE, n)
		return append(out, lits[0])
	}
	single := n <= maxSingleStream
	// Each stream ends with its end mark and partial byte; four streams
	// also have a 6-byte jump table. The header grows by up to 2 bytes.
	overhead := 1
	if !single {
		overhead = 4 + 6
	}
	need := 1 // bytes the coding must save
	if e.litGainShift != 0 {
		need = max(n>>e.litGainShift, 1)
	}
	// No prefix code spends fewer bits than the literals' entropy: when
	// even that would not save enough, they are stored raw without
	// building a code (the decision the code would have led to; on the
	// pipeline workload, a third of the blocks).
	if n-(int(h.entropyBits(sum)/8)+overhead) < need {
		return appendRawLits(out, lits)
	}
	bits, maxBits := h.lengths(sum, distinct)
	streams := int(bits/8) + overhead
	if n-streams < need {
		return appendRawLits(out, lits)
	}
	if !h.describe(maxSym, maxBits) || n-streams-len(h.desc) < need {
		return appendRawLits(out, lits)
	}
	h.assign(maxSym, maxBits)

	start := len(out)
	hdr := 3
	switch {
	case single:
	case n < 1<<14:
		hdr = 4
	default:
		hdr = 5
	}
	out = append(out, make([]byte, hdr)...)
	out = append(out, h.desc...)
	if single {
		out = h.appendStream(out, lits)
	} else {
		seg := (n + 3) / 4
		jump := len(out)
		out = append(out, 0, 0, 0, 0, 0, 0)
		for i := range 4 {
			s := lits[min(i*seg, n):min((i+1)*seg, n)]
			at := len(out)
			out = h.appendStream(out, s)
			if i < 3 {
				binary.LittleEndian.PutUint16(out[jump+2*i:], uint16(len(out)-at))
			}
		}
	}
	c := len(out) - start - hdr
	if hdr+c >= rawLitHeaderLen(n)+n {
		return appendRawLits(out[:start], lits)
	}
	switch hdr {
	case 3:
		// Size_Format 00: one stream, 10-bit sizes.
		h := uint32(litCompressed) | uint32(n)<<4 | uint32(c)<<14
		out[start], out[start+1], out[start+2] = byte(h), byte(h>>8), byte(h>>16)
	case 4:
		// Size_Format 10: four streams, 14-bit sizes.
		h := uint32(litCompressed) | 2<<2 | uint32(n)<<4 | uint32(c)<<18
		binary.LittleEndian.PutUint32(out[start:], h)
	default:
		// Size_Format 11: four streams, 18-bit sizes.
		h := uint64(litCompressed) | 3<<2 | uint64(n)<<4 | uint64(c)<<22
		binary.LittleEndian.PutUint32(out[start:], uint32(h))
		out[start+4] = byte(h >> 32)
	}
	return out
}

// litSample is how many literals samplePays looks at.
const litSample = 2048

// log2Fix16[c] is log2(c) in 16.16 fixed point, for c up to litSample.
var log2Fix16 = func() (t [litSample + 1]uint32) {
	for c := 1; c <= litSample; c++ {
		t[c] = uint32(math.Round(math.Log2(float64(c)) * 65536))
	}
	return t
}()

// samplePays reports whether Huffman coding could save need bytes of lits,
// judged from litSample of them, one from each of litSample equal strides
// at an offset that moves on by one from stride to stride: a fixed offset
// would see one phase only of literals that repeat with a period dividing
// the stride, as a block of one format's events leaves them (it stored
// raw literals that Huffman coding shrinks by 40%). Their order-0 entropy
// is what no Huffman code beats (it has a table to pay for, and whole-bit
// lengths), and a sample's entropy comes out low, so the saving it
// promises errs high; when even that is under need, the full count would
// have stored the literals raw too, and is skipped. W1's decode units
// (random argument bytes, a few percent saved where 1/8 is asked for)
// then cost a sample instead of a count of every literal and a table.
func (h *huffScratch) samplePays(lits []byte, need int) bool {
	c := &h.count[0]
	*c = [256]uint32{}
	step := len(lits) / litSample
	// Sample i is literal i*step + i&m, m+1 the largest power of two
	// not above the stride: with a period dividing the stride, the offset
	// runs through every phase in turn (the first m+1 of a period longer
	// than that).
	m := 1
	for m*2 <= step {
		m *= 2
	}
	m--
	for i, p := 0, 0; i < litSample; i, p = i+1, p+step {
		c[lits[p+i&m]]++
	}
	// bits = sum over symbols of count * (log2(litSample) - log2(count))
	var sum uint64
	for _, v := range c {
		sum += uint64(v) * uint64(log2Fix16[min(v, litSample)])
	}
	bits := uint64(litSample)*uint64(log2Fix16[litSample]) - sum // 16.16 fixed point
	coded := float64(bits) / 65536 / 8 * float64(len(lits)) / litSample
	return float64(len(lits))-coded >= float64(need)
}

// histogram counts lits (count[0] ends up holding the histogram, keys[:n]
// the present symbols) and returns their number, the highest symbol
// present and how many distinct symbols there are.
func (h *huffScratch) histogram(lits []byte) (total uint32, maxSym, distinct int) {
	h.count = [4][256]uint32{}
	c0, c1, c2, c3 := &h.count[0], &h.count[1], &h.count[2], &h.count[3]
	// 16 bytes an iteration through an array pointer: one bounds check,
	// and a load and an increment a byte (re-slicing 4 at a time cost
	// more in loop upkeep than the counting).
	i := 0
	for ; i+16 <= len(lits); i += 16 {
		b := (*[16]byte)(lits[i:])
		c0[b[0]]++
		c1[b[1]]++
		c2[b[2]]++
		c3[b[3]]++
		c0[b[4]]++
		c1[b[5]]++
		c2[b[6]]++
		c3[b[7]]++
		c0[b[8]]++
		c1[b[9]]++
		c2[b[10]]++
		c3[b[11]]++
		c0[b[12]]++
		c1[b[13]]++
		c2[b[14]]++
		c3[b[15]]++
	}
	for _, v := range lits[i:] {
		c0[v]++
	}
	c := &h.count
	for s := range 256 {
		v := c[0][s] + c[1][s] + c[2][s] + c[3][s]
		c[0][s] = v
		if v != 0 {
			h.keys[distinct] = v<<8 | uint32(s)
			distinct++
			maxSym = s
		}
	}
	return uint32(len(lits)), maxSym, distinct
}

// log2Bounds returns a lower and an upper bound of log2(x), x > 0, in
// 16.16 fixed point: the rounded table value -+1 below 512, and above it
// the bounds from the top nine bits m (x is between m<<s and (m+1)<<s).
// The table is samplePays' log2Fix16 (rounded, up to litSample > 512).
func log2Bounds(x uint32) (lo, hi uint64) {
	if x < 512 {
		v := uint64(log2Fix16[x])
		return v - 1, v + 1
	}
	s := uint(bits.Len32(x) - 9)
	m := x >> s
	return uint64(log2Fix16[m]) + uint64(s)<<16 - 1, uint64(log2Fix16[m+1]) + uint64(s)<<16 + 1
}

// entropyBits returns a lower bound, in bits, of the order-0 entropy of
// the total literals counted in count[0], n*log2(n) - sum of c*log2(c):
// no prefix code (Huffman's least of all) codes them in fewer. It errs
// low by at most 0.012 bits a literal, and costs a few thousand
// instructions where building the code takes tens of thousands.
func (h *huffScratch) entropyBits(total uint32) uint64 {
	var sum uint64
	for _, c := range h.count[0] {
		if c != 0 {
			_, hi := log2Bounds(c)
			sum += uint64(c) * hi
		}
	}
	lo, _ := log2Bounds(total)
	if all := uint64(total) * lo; all > sum {
		return (all - sum) >> 16
	}
	return 0
}

// lengths computes the code length of every present symbol (in depth,
// by rank: depth[i] for keys[i] once sorted), at most huffMaxBits, and
// returns the coded size in bits and the longest length.
func (h *huffScratch) lengths(total uint32, n int) (bits uint64, maxBits int) {
	h.n = n
	keys := h.keys[:n]
	sortByCount(keys, h.tmp[:n], total)
	a := h.depth[:n]
	for i, k := range keys {
		a[i] = k >> 8
	}
	minimumRedundancy(a)
	if a[0] > huffMaxBits {
		limitLengths(a)
	}
	for i, k := range keys {
		bits += uint64(k>>8) * uint64(a[i])
	}
	return bits, int(a[0])
}

// sortByCount sorts keys (count<<8 | symbol, in symbol order) by count,
// ties by symbol, with a stable radix sort on the count's bytes (two passes
// for counts below 65536): a few thousand instructions for 256 symbols,
// where a comparison sort takes several times that.
func sortByCount(keys, tmp []uint32, maxCount uint32) {
	src, dst := keys, tmp
	for shift := uint(8); shift < 8+uint(bits.Len32(maxCount)); shift += 8 {
		var at [257]uint32
		for _, k := range src {
			at[(k>>shift)&255+1]++
		}
		for i := 1; i < 257; i++ {
			at[i] += at[i-1]
		}
		for _, k := range src {
			d := (k >> shift) & 255
			dst[at[d]] = k
			at[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// minimumRedundancy replaces the ascending weights a (len >= 2) by the
// code lengths of a minimum-redundancy (Huffman) code for them, in place
// and in linear time: A. Moffat and J. Katajainen, "In-place calculation
// of minimum-redundancy codes" (1995). The lengths come out
// non-increasing: a[0] is the longest.
func minimumRedundancy(a []uint32) {
	n := len(a)
	// Phase 1: internal node weights, and each node's parent.
	a[0] += a[1]
	root, leaf := 0, 2
	for next := 1; next < n-1; next++ {
		if leaf >= n || a[root] < a[leaf] {
			a[next] = a[root]
			a[root] = uint32(next)
			root++
		} else {
			a[next] = a[leaf]
			leaf++
		}
		if leaf >= n || (root < next && a[root] < a[leaf]) {
			a[next] += a[root]
			a[root] = uint32(next)
			root++
		} else {
			a[next] += a[leaf]
			leaf++
		}
	}
	// Phase 2: internal node depths.
	a[n-2] = 0
	for next := n - 3; next >= 0; next-- {
		a[next] = a[a[next]] + 1
	}
	// Phase 3: leaf depths.
	avail, used, depth := 1, 0, uint32(0)
	root, next := n-2, n-1
	for avail > 0 {
		for root >= 0 && a[root] == depth {
			used++
			root--
		}
		for avail > used {
			a[next] = depth
			next--
			avail--
		}
		avail, used, depth = 2*used, 0, depth+1
	}
}

// limitLengths makes the non-increasing code lengths a, of which a[0]
// exceeds huffMaxBits, a complete code of at most huffMaxBits bits: clamp,
// lengthen the longest codes still below the limit until the Kraft sum
// fits, then shorten codes at the limit while it has room (zstd's table
// description only describes complete codes). Longer codes still go to
// the rarer symbols.
func limitLengths(a []uint32) {
	const L = huffMaxBits
	var count [L + 1]int
	for _, d := range a {
		count[min(d, L)]++
	}
	kraft := 0
	for l := 1; l <= L; l++ {
		kraft += count[l] << (L - l)
	}
	for kraft > 1<<L {
		l := L - 1
		for count[l] == 0 {
			l--
		}
		count[l]--
		count[l+1]++
		kraft -= 1 << (L - l - 1)
	}
	for kraft < 1<<L {
		l := L
		for count[l] == 0 || kraft+1<<(L-l) > 1<<L {
			l--
		}
		count[l]--
		count[l-1]++
		kraft += 1 << (L - l)
	}
	i := 0
	for l := L; l >= 1; l-- {
		for range count[l] {
			a[i] = uint32(l)
			i++
		}
	}
}

// describe builds the table description of the lengths (by weight: 0 for
// an absent symbol, maxBits+1-length for a present one; the last symbol's
// weight is implied) into h.desc: FSE compressed when that is smaller, else
// 4 bits a weight (up to 128 weights). false if neither can describe it.
func (h *huffScratch) describe(maxSym, maxBits int) bool {
	w := h.weights[:maxSym+1]
	clear(w)
	for i, k := range h.keys[:h.n] {
		w[k&255] = uint8(maxBits + 1 - int(h.depth[i]))
	}
	w = w[:maxSym] // the last weight is implied
	hist := h.fse.Histogram()
	clear(hist[:16])
	for _, v := range w {
		hist[v&15]++
	}
	maxW, maxCount := 0, uint32(0)
	for v, c := range hist[:16] {
		if c != 0 {
			maxW, maxCount = v, max(maxCount, c)
		}
	}
	h.desc = h.desc[:0]
	if maxSym >= 2 {
		h.fse.HistogramFinished(uint8(maxW), int(maxCount))
		h.fse.TableLog = 6 // the weights' FSE table is at most 6 bits
		if b, err := fse.Compress(w, &h.fse); err == nil && len(b) < (maxSym+1)/2 {
			h.desc = append(append(h.desc, byte(len(b))), b...)
			return true
		}
	}
	if maxSym > 128 {
		return false
	}
	h.desc = append(h.desc, byte(127+maxSym))
	for i := 0; i < maxSym; i += 2 {
		lo := uint8(0)
		if i+1 < maxSym {
			lo = w[i+1]
		}
		h.desc = append(h.desc, w[i]<<4|lo)
	}
	return true
}

// assign gives every present symbol its canonical code: by length, the
// longest first from value 0, and by symbol within a length, which is how
// the decoder numbers them from the weights.
func (h *huffScratch) assign(maxSym, maxBits int) {
	var perLen, next [huffMaxBits + 2]uint16
	h.nbits = [256]uint8{}
	for i, k := range h.keys[:h.n] {
		d := h.depth[i]
		h.nbits[k&255] = uint8(d)
		perLen[d&15]++
	}
	v := uint16(0)
	for l := maxBits; l > 0; l-- {
		next[l] = v
		v = (v + perLen[l]) >> 1
	}
	for s, nb := range h.nbits[:maxSym+1] {
		if nb != 0 {
			h.val[s] = uint64(next[nb&15])
			next[nb&15]++
		}
	}
	for s, nb := range h.nbits {
		h.lens[s] = uint64(nb)
	}
}

// appendStream appends one Huffman-coded stream of lits: the symbols from
// the last to the first, LSB first, then the end mark (the decoder reads
// the stream backwards from it).
//
// Its loop stores and loads through unchecked pointers, after one check
// that out has room for the longest stream lits can make (11 bits a
// symbol, and the 8-byte stores' overhang): with bounds checks on each
// store and re-slicing of lits it took 12.6 instructions a literal.
func (h *huffScratch) appendStream(out, lits []byte) []byte {
	n := len(lits)
	if cap(out)-len(out) < n*huffMaxBits/8+16 {
		return h.appendStreamChecked(out, lits)
	}
	val, nbits := &h.val, &h.nbits
	base := unsafe.Pointer(unsafe.SliceData(out[:cap(out)]))
	lp := unsafe.Pointer(unsafe.SliceData(lits))
	pos := len(out)
	var c uint64
	var nb uint
	i := n
	for i&3 != 0 {
		i--
		s := *(*byte)(unsafe.Add(lp, i))
		c |= val[s] << (nb & 63)
		nb += uint(nbits[s])
	}
	// Flushing leaves at most 7 bits; four codes add at most 44.
	if w, c2, nb2, ok := huffLoop(unsafe.Add(base, pos), lp, i, h, c, uint64(nb)); ok {
		pos, c, nb, i = pos+w, c2, uint(nb2), 0
	}
	for i >= 4 {
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(base, pos))[:], c)
		pos += int(nb >> 3)
		c >>= (nb &^ 7) & 63
		nb &= 7
		i -= 4
		q := (*[4]byte)(unsafe.Add(lp, i))
		s3, s2, s1, s0 := q[3], q[2], q[1], q[0]
		c |= val[s3] << (nb & 63)
		nb += uint(nbits[s3])
		c |= val[s2] << (nb & 63)
		nb += uint(nbits[s2])
		c |= val[s1] << (nb & 63)
		nb += uint(nbits[s1])
		c |= val[s0] << (nb & 63)
		nb += uint(nbits[s0])
	}
	c |= 1 << (nb & 63) // the end mark
	nb++
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(base, pos))[:], c)
	pos += int(nb+7) >> 3
	return out[:pos]
}

// appendStreamChecked is appendStream with bounds-checked slices, for an
// out that may not have the room appendStream's loop assumes.
func (h *huffScratch) appendStreamChecked(out, lits []byte) []byte {
	val, nbits := &h.val, &h.nbits
	pos := len(out)
	out = out[:cap(out)]
	var c uint64
	var nb uint
	for r := len(lits) & 3; r > 0; r-- {
		s := lits[len(lits)-1]
		lits = lits[:len(lits)-1]
		c |= val[s] << (nb & 63)
		nb += uint(nbits[s])
	}
	for len(lits) >= 4 {
		binary.LittleEndian.PutUint64(out[pos:], c)
		pos += int(nb >> 3)
		c >>= (nb &^ 7) & 63
		nb &= 7
		q := lits[len(lits)-4:]
		s3, s2, s1, s0 := q[3], q[2], q[1], q[0]
		lits = lits[:len(lits)-4]
		c |= val[s3] << (nb & 63)
		nb += uint(nbits[s3])
		c |= val[s2] << (nb & 63)
		nb += uint(nbits[s2])
		c |= val[s1] << (nb & 63)
		nb += uint(nbits[s1])
		c |= val[s0] << (nb & 63)
		nb += uint(nbits[s0])
	}
	c |= 1 << (nb & 63) // the end mark
	nb++
	binary.LittleEndian.PutUint64(out[pos:], c)
	pos += int(nb+7) >> 3
	return out[:pos]
}

// rawLitHeaderLen is the length of appendLitHeader's header for n.
func rawLitHeaderLen(n int) int {
	switch {
	case n < 1<<5:
		return 1
	case n < 1<<12:
		return 2
	default:
		return 3
	}
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
