package zrec

import "fmt"

// Encoder compresses event blocks into zstd frames. It holds only reusable
// scratch space, so after the first few calls EncodeAll does not allocate.
// An Encoder must not be used by two goroutines at once; use one per
// compression worker.
type Encoder struct {
	fmts     [fmtSlots]fmtSlot // last event of each format_id in this frame
	prevPos  int               // previous event start in this frame, -1 if none
	prevSize int
	reps     [3]uint32 // repeat offsets, mirrored from the decoder

	seqs []seq  // sequences of the current zstd block, coded
	lits []byte // literals of the current zstd block

	// WithScratch: where seqs and lits come from, and their memory.
	alloc          func(n int) []byte
	free           func([]byte)
	seqMem, litMem []byte

	stats  BlockStats // of the current frame
	srcLen int

	llHist, mlHist, ofHist [maxSymbolSize]uint32
	norm                   [maxSymbolSize]int16
	tabs                   seqTables
	tcache                 tableCache
	huff                   huffScratch

	mr matchRegs // the assembly match loop's state (match_amd64.s)
	ct codeTabs  // code tables where the assembly addresses them

	// litGainShift: Huffman-code literals only when that is estimated to
	// save at least 1/2^litGainShift of them (0: whenever it saves bytes).
	litGainShift uint8
}

// Option configures an Encoder.
type Option func(*Encoder) error

// WithLiteralMinGain makes the encoder store a block's literals raw unless
// Huffman coding is estimated to save at least 1/2^shift of their size
// (shift 1..8; 0, the default, codes them whenever that is smaller). Fast
// levels use 3: on literals that are mostly random bytes, Huffman coding
// costs a quarter of the encoder's time for a few percent of size.
func WithLiteralMinGain(shift int) Option {
	return func(e *Encoder) error {
		if shift < 0 || shift > 8 {
			return fmt.Errorf("zrec: literal gain shift %d is not 0..8", shift)
		}
		e.litGainShift = uint8(shift)
		return nil
	}
}

// NewEncoder returns an Encoder. Its buffers grow on first use to the size
// of the largest zstd block seen (at most 128 KiB of input).
func NewEncoder(opts ...Option) (*Encoder, error) {
	e := &Encoder{prevPos: -1}
	e.tabs.init()
	e.ct = codeTables
	for _, o := range opts {
		if err := o(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// EncodeAll appends to dst one complete zstd frame that decodes to src and
// returns the extended slice. src is expected to be a sequence of events
// (see the package documentation) but any bytes are accepted: whatever does
// not parse as events is stored as literals. If dst has at least
// MaxEncodedSize(len(src)) bytes of spare capacity, nothing is allocated.
func (e *Encoder) EncodeAll(src, dst []byte) []byte {
	if need := MaxEncodedSize(len(src)); cap(dst)-len(dst) < need {
		grown := make([]byte, len(dst), len(dst)+need)
		copy(grown, dst)
		dst = grown
	}
	dst = appendFrameHeader(dst, len(src))
	e.stats, e.srcLen = BlockStats{MinCycle: ^uint64(0)}, len(src)
	if len(src) == 0 {
		e.stats.MinCycle = 0
		return appendChecksum(appendBlockHeader(dst, true, blockRaw, 0), src)
	}
	e.resetFrame()
	e.srcLen = len(src)
	for pos := 0; pos < len(src); {
		reps := e.reps
		end := e.findSequences(src, pos)
		dst = e.appendBlock(dst, src[pos:end], end == len(src), reps)
		pos = end
	}
	return appendChecksum(dst, src)
}

// BlockStats describes the events EncodeAll parsed in its last input.
type BlockStats struct {
	Events      int
	MinCycle    uint64 // 0 when there is no event
	MaxCycle    uint64
	parsedBytes int
}

// Stats returns what the last EncodeAll found in its input, and whether the
// input was exactly a sequence of whole events (if not, the counts only
// cover the events it could parse).
func (e *Encoder) Stats() (BlockStats, bool) {
	s := e.stats
	if s.Events == 0 {
		s.MinCycle = 0
	}
	return s, s.parsedBytes == e.srcLen
}

// MaxEncodedSize is the spare capacity dst needs for EncodeAll(src, dst)
// with len(src) == n not to allocate; the frame itself is at most
// blockSlack bytes shorter. Every zstd block is at worst stored raw, and
// blocks end at event boundaries but always cover more than 64000 bytes
// unless last.
func MaxEncodedSize(n int) int {
	return frameHeaderMax + n + blockHeaderLen*(n/64000+2) + checksumLen + blockSlack
}

func (e *Encoder) resetFrame() {
	e.fmts = [fmtSlots]fmtSlot{}
	e.prevPos, e.prevSize = -1, 0
	e.reps = [3]uint32{1, 4, 8}
}

// appendBlock entropy codes the sequences and literals found for block and
// appends a compressed block, or a raw one when that is not smaller. The
// compressed block is built in place, in dst's spare capacity. A raw block
// leaves the decoder's repeat offsets untouched, so ours are rolled back to
// reps, their value before the block.
func (e *Encoder) appendBlock(dst, block []byte, last bool, reps [3]uint32) []byte {
	hdr := len(dst)
	if cap(dst)-hdr < blockHeaderLen+len(block)+blockSlack {
		// Not reached from EncodeAll, which reserves MaxEncodedSize.
		grown := make([]byte, hdr, hdr+blockHeaderLen+len(block)+blockSlack)
		copy(grown, dst)
		dst = grown
	}
	limit := len(block) - 1 // a compressed block must beat the raw one
	out := e.appendLiterals(dst[hdr+blockHeaderLen:hdr+blockHeaderLen], e.lits)
	ok := len(out) <= limit
	if ok {
		out, ok = e.appendSequences(out, limit)
	}
	// (The slack makes the appends above stay in dst's array; the pointer
	// check is a guard against a future change breaking that.)
	if ok && len(out) < len(block) && &out[:1][0] == &dst[hdr+blockHeaderLen : hdr+blockHeaderLen+1][0] {
		dst = appendBlockHeader(dst, last, blockCompressed, len(out))
		return dst[:hdr+blockHeaderLen+len(out)]
	}
	e.reps = reps
	dst = appendBlockHeader(dst, last, blockRaw, len(block))
	return append(dst, block...)
}
