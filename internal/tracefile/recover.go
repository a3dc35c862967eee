package tracefile

import (
	"encoding/binary"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/zdec"
	"github.com/chronon-sim/chronon-go/schema"
)

// Recovery of a file without a usable footer.
//
// Blocks are written back to back, each behind its 28-byte inline header, so
// they can be found by walking from the first one. Where the first block is:
//   - at first_block_offset when the header has it (files of our writer,
//     whose header is complete before the first block; noindex files);
//   - otherwise right after the schema, give or take alignment padding: the
//     original writer, killed before close, leaves every header offset zero,
//     so the schema is located after the header (locateSchema) and its
//     FlatBuffer extent says where it ends;
//   - at the end of the header when the file has no schema.
//
// A candidate counts as a block only if its header is plausible, its data
// lies in the file, and it decodes completely: zstd to exactly the declared
// size, exactly the declared number of events, every cycle in its range. A
// candidate that fails its zstd content checksum (a flipped bit), or whose
// whole frame records another size than its inline header declares (a
// flipped bit in the header: zdec.ErrDeclaredSize) or whose checksummed
// events disagree with it (errHeaderDamage), but is followed, where
// its header says the next block starts, by one that decodes, or is the
// last and whole, is a damaged block: left out and listed
// (Status.Damaged), and the walk goes on. The failing candidates after the
// last good one, and whatever cannot be read as a block header, are the
// torn tail, reported
// (Status) and ignored. Blocks of no events whose data is a zstd skippable
// frame (chronon-go's schema frames) are stepped over.

// maxFirstBlockSearch bounds how far past the schema the first block is
// looked for when the header does not say where it is.
const maxFirstBlockSearch = 1 << 20

func (f *File) recoverBlocks(why string, firstCut bool) error {
	size := int64(len(f.data))
	st := Status{Recovered: true, Why: why}
	var start int64
	search := false
	switch {
	case firstCut:
		st.TornOffset, st.TornReason = size, "the header's first block offset lies past the end of the file"
		f.status = st
		return nil
	case f.hdr.FirstBlockOffset != 0:
		start = int64(f.hdr.FirstBlockOffset)
	case f.schemaOff >= 0:
		start, search = f.schemaOff+f.schemaSize, true
	default:
		start, search = schema.HeaderSize, true
	}
	if search {
		from := start
		start = f.findFirstBlock(start)
		if f.schemaLocated && start > from && start-from < 16 {
			// The gap is the schema's alignment padding: keep it with the
			// schema, as the header of a closed file would.
			f.schemaSize += start - from
		}
	}
	blocks, tornAt, reason, damaged := f.walk(start)
	st.Damaged = damaged
	f.blocks = blockTable{list: blocks}
	st.Blocks = len(blocks)
	for i := range blocks {
		st.Events += uint64(blocks[i].EventCount)
	}
	st.TornOffset, st.TornBytes, st.TornReason = tornAt, size-tornAt, reason
	if st.TornBytes == 0 {
		st.TornReason = ""
	}
	f.status = st
	return nil
}

// findFirstBlock returns the offset of the first complete block at or a
// little after from: the next 16 offsets, then past a run of zero bytes.
// It returns from when none is found (the walk then reports a torn tail).
func (f *File) findFirstBlock(from int64) int64 {
	size := int64(len(f.data))
	isBlock := func(off int64) bool {
		if off < schema.HeaderSize || off > size {
			return false
		}
		b, why := f.blockHeaderAt(off, 0)
		if why != "" || empty(&b) { // zero padding reads as empty blocks
			return false
		}
		_, err := f.Verify(&b)
		return err == nil
	}
	for d := int64(0); d < 16; d++ {
		if isBlock(from + d) {
			return from + d
		}
	}
	// Zero padding (a writer that reserved room for the schema): a block
	// header starts with a non-zero event count, so it begins at most three
	// bytes before the first non-zero byte.
	nz := from
	for nz < size && nz-from < maxFirstBlockSearch && f.data[nz] == 0 {
		nz++
	}
	if nz > from+16 {
		for d := int64(3); d >= 0; d-- {
			if isBlock(nz - d) {
				return nz - d
			}
		}
	}
	return from
}

// blockHeaderAt reads the inline header at off as block index and says
// why it cannot start a block there ("" when it can): the header must be
// whole and plausible and the data must lie in the file.
func (f *File) blockHeaderAt(off int64, index int) (Block, string) {
	size := int64(len(f.data))
	if size-off < schema.BlockHeaderSize {
		return Block{}, "the file ends inside a block header"
	}
	bh, _ := schema.DecodeBlockHeader(f.data[off:])
	if why := plausible(bh); why != "" {
		return Block{}, "no block header: " + why
	}
	if int64(bh.CompressedSize) > size-off-schema.BlockHeaderSize {
		return Block{}, "the block's data runs past the end of the file"
	}
	return newBlock(bh, index, off), ""
}

// Verify decodes block b completely and returns the units its events belong to.
func (f *File) Verify(b *Block) (_ []uint16, err error) {
	defer f.Guard(&err, PanicOnFault()) // runs on the walk's goroutines
	data, buf, err := f.BlockBytes(b)
	if err != nil {
		return nil, err
	}
	defer bufpool.Put(buf)
	var bd Decoded
	if err := f.ScanEvents(b, data, nil, &bd); err != nil {
		return nil, f.headerDamage(b, f.rawDamage(b, err))
	}
	if err := f.checkRawEvents(b, data); err != nil {
		return nil, err
	}
	if err := f.exactRange(b, data); err != nil {
		return nil, err
	}
	return unitsOf(data), nil
}

// exactRange checks, for a block found by the walk of a file without a
// footer, that its inline header's cycle range is its events' own (our
// writers write the first and last cycle of a block's events there): a
// flipped bit that widens the range leaves every event inside it, and the
// blocks' ranges are what the reader reports of the file and prunes
// queries by. Only where something vouches for the events (a zstd frame's
// content checksum, or a raw block of ours, checkRawEvents'), so the
// header is what is damaged; blocks of a file with a footer are held to
// the footer's entry instead.
func (f *File) exactRange(b *Block, data []byte) error {
	if f.footer != nil || len(data) < schema.EventHeaderSize {
		return nil
	}
	kind := errRawDamage
	if !f.rawUnchecked(b) {
		if IsRaw(b) || b.CompressedSize < 5 || f.data[PayloadOff(b)+4]&4 == 0 { // Frame_Header_Descriptor: Content_Checksum_flag
			return nil
		}
		kind = errHeaderDamage
	}
	lo, hi := ^uint64(0), uint64(0)
	for p := 0; p+schema.EventHeaderSize <= len(data); p += schema.EventHeaderSize + int(le16(data[p:])) { // walked by ScanEvents
		c := binary.LittleEndian.Uint64(data[p+2:])
		lo, hi = min(lo, c), max(hi, c)
	}
	if lo == b.MinCycle && hi == b.MaxCycle {
		return nil
	}
	fe := formatErr(f.path, BlockSection(int(b.Index)), HeaderOff(b),
		"its events' cycles are %d-%d, its inline header says %d-%d", lo, hi, b.MinCycle, b.MaxCycle)
	fe.Kind = kind
	return fe
}

// emptyBlockAt recognizes a block of no events whose data is one zstd
// skippable frame (magic 0x184D2A50..5F, u32 length, payload): chronon-go
// appends the schema in such blocks when it outgrows its slots
// (docs/format.md, "Schema frame"); any zstd decoder decodes the frame to 0
// bytes. It returns where the block ends (0 when off holds none), or why a
// block that starts like one is not whole.
func (f *File) emptyBlockAt(off int64) (end int64, why string) {
	size := int64(len(f.data))
	if size-off < schema.BlockHeaderSize+8 {
		return 0, ""
	}
	bh, _ := schema.DecodeBlockHeader(f.data[off:])
	d := f.data[off+schema.BlockHeaderSize:]
	if bh.EventCount != 0 || bh.MinCycle != 0 || bh.MaxCycle != 0 || bh.UncompressedSize != 0 || bh.CompressedSize < 8 ||
		binary.LittleEndian.Uint32(d)&^0xF != 0x184D2A50 || binary.LittleEndian.Uint32(d[4:]) != bh.CompressedSize-8 {
		return 0, ""
	}
	if int64(bh.CompressedSize) > size-off-schema.BlockHeaderSize {
		return 0, "a schema frame (block of no events) runs past the end of the file"
	}
	return off + schema.BlockHeaderSize + int64(bh.CompressedSize), ""
}

// walk follows inline headers from start and verifies the blocks found, in
// parallel. It returns the complete blocks, where the torn tail begins, why
// the bytes there are not a block, and the damaged blocks left out before
// it (where and why).
func (f *File) walk(start int64) (_ []Block, tornAt int64, why string, damaged []string) {
	size := int64(len(f.data))
	var cands []Block
	off := start
	stop := ""
	for off < size {
		if end, what := f.misstatedData(off, false); end > 0 {
			damaged = append(damaged, what)
			off = end
			continue
		}
		b, why := f.blockHeaderAt(off, len(cands))
		if why != "" {
			if end, frame := f.emptyBlockAt(off); end > 0 {
				off = end // nothing to read in it: the header already points at any schema it holds
				continue
			} else if frame != "" {
				why = frame
			}
			// A damaged inline header (a flipped bit in its sizes) with
			// whole blocks after it is not a torn tail: the walk goes on
			// at the next block that decodes, and the bytes between are
			// left out and named. A cut leaves no whole block after it.
			if next := f.resync(off + 1); next > 0 {
				damaged = append(damaged, "bytes "+itoa(int(off))+" to "+itoa(int(next))+" hold no block ("+why+"): left out, the next block is at byte "+itoa(int(next)))
				off = next
				continue
			}
			if end, what := f.misstatedData(off, true); end > 0 {
				damaged = append(damaged, what)
				off = end
				continue
			}
			stop = why
			break
		}
		cands = append(cands, b)
		off = BlockEnd(&b)
	}
	// Verify the candidates. One that fails its checksum (a zstd frame's
	// content checksum: a flipped bit, not a cut) does not end the walk
	// when the one after it is good: it is a damaged block, left out. Any
	// other failure, or two in a row, ends it (the torn tail), and nothing
	// past them is decoded.
	errs := make([]error, len(cands))
	for i := range errs {
		errs[i] = errUnverified
	}
	for from := 0; from < len(cands); {
		i := f.verifyFrom(cands, errs, from)
		if i+1 >= len(cands) {
			break
		}
		if !isChecksumErr(errs[i]) {
			// The walk ends at i. Goroutines may have decoded candidates
			// past it before the failure was seen: they are not blocks
			// all the same, or the outcome would hang on the scheduling.
			cands = cands[:i+1]
			break
		}
		if errs[i+1] == errUnverified { // not already, beside i
			cands[i+1].Units, errs[i+1] = f.Verify(&cands[i+1])
		}
		if errs[i+1] != nil {
			cands = cands[:i+2] // the walk ends at i: what follows is not decoded
			break
		}
		from = i + 2
	}
	failed := func(i int) string {
		reason := errs[i].Error()
		if fe := (*schema.FormatError)(nil); errors.As(errs[i], &fe) {
			reason = fe.Reason
		}
		return "block at byte " + itoa(int(cands[i].DataOffset)) + " does not decode: " + reason
	}
	// Zero bytes read as empty blocks: a zero-filled tail (preallocated, or
	// what some file systems leave after a crash) is torn, not blocks.
	n := zeroTail(f.data, cands)
	last := n - 1 // the last good candidate
	for last >= 0 && errs[last] != nil {
		last--
	}
	good := cands[:0]
	for i := 0; i <= last; i++ {
		if errs[i] != nil {
			damaged = append(damaged, failed(i))
			continue
		}
		cands[i].Index = uint32(len(good))
		good = append(good, cands[i])
	}
	if last+2 == len(cands) && n == len(cands) && isChecksumErr(errs[last+1]) {
		// The last block is whole (a cut leaves a block whose data runs
		// past the end) and fails its checksum: damaged, not torn.
		damaged = append(damaged, failed(last+1))
		return good, off, stop, damaged
	}
	switch {
	case last+1 < n:
		return good, HeaderOff(&cands[last+1]), failed(last + 1), damaged
	case n < len(cands):
		return good, HeaderOff(&cands[n]), "zero bytes where a block header would be", damaged
	}
	return good, off, stop, damaged
}

// misstatedData recognizes at off a zstd block whose inline header
// misstates it: a flipped bit in its sizes, its event count or its cycle
// range that leaves the header implausible or its data elsewhere than
// its frames are. The frames say what the header should: the first
// records the content size, their block headers where they end, and the
// events they decode to (the first frame's content checksum vouching for
// them) their count and range. When the frames are whole and the header
// disagrees with them, the block is damaged, not torn (a cut, or a block
// still being written, leaves frames that are not whole): it returns
// where the frames end, for the walk to go on there, and what to say of
// it; 0 otherwise. The frames are looked for within their content size
// (a zstd block's data is smaller), at most 64 MiB, and decoded only when
// the header's sizes disagree with them or it is implausible; nothing is
// sized by the header.
//
// The walk asks first (last false) of every block: then only a header
// whose compressed_size alone disagrees is taken up (the other fields'
// damage has its own checks: Decode's declared size, Verify's events,
// the resync past an implausible header). When the header is implausible
// and no block follows to resync at (last true: the file's last block),
// any disagreement is.
func (f *File) misstatedData(off int64, last bool) (end int64, what string) {
	size := int64(len(f.data))
	from := off + schema.BlockHeaderSize
	if size-from < 8 {
		return 0, ""
	}
	bh, _ := schema.DecodeBlockHeader(f.data[off:])
	usize, ok := zdec.ContentSize(f.data[from:])
	if !ok { // a frame without its content size (not ours): the header's, which must then be right
		usize = uint64(bh.UncompressedSize)
	}
	if usize == 0 || usize > schema.MaxBlockSize {
		return 0, ""
	}
	n := zdec.FramesEnd(f.data[from:min(size, from+int64(usize))])
	if n < 0 {
		return 0, ""
	}
	if !last && (uint64(bh.UncompressedSize) != usize || int(bh.CompressedSize) == n) {
		return 0, ""
	}
	data, buf, err := zdec.Decode(f.data[from:from+int64(n)], int(usize), nil)
	if err != nil {
		return 0, ""
	}
	defer bufpool.Put(buf)
	truth := schema.BlockHeader{UncompressedSize: uint32(usize), CompressedSize: uint32(n), MinCycle: ^uint64(0)}
	for p := 0; p < len(data); {
		if len(data)-p < schema.EventHeaderSize || len(data)-p-schema.EventHeaderSize < int(le16(data[p:])) {
			return 0, "" // not events: nothing says what the header should be
		}
		c := binary.LittleEndian.Uint64(data[p+2:])
		truth.MinCycle, truth.MaxCycle = min(truth.MinCycle, c), max(truth.MaxCycle, c)
		truth.EventCount++
		p += schema.EventHeaderSize + int(le16(data[p:]))
	}
	if truth == bh || truth.Raw() {
		return 0, ""
	}
	return from + int64(n), "block at byte " + itoa(int(off)) + " does not decode: its inline header {events " + itoa(int(bh.EventCount)) +
		", cycles " + utoa(bh.MinCycle) + "-" + utoa(bh.MaxCycle) + ", sizes " + itoa(int(bh.UncompressedSize)) + "/" + itoa(int(bh.CompressedSize)) +
		"} is damaged: its whole zstd frame (its content checksum good) holds {events " + itoa(int(truth.EventCount)) +
		", cycles " + utoa(truth.MinCycle) + "-" + utoa(truth.MaxCycle) + ", sizes " + itoa(int(truth.UncompressedSize)) + "/" + itoa(n) + "}"
}

func utoa(u uint64) string { return strconv.FormatUint(u, 10) }

// maxResync bounds how far past a damaged block header the walk looks for
// the next block.
const maxResync = 1 << 26

// resync returns the offset of the first block at or after from that has a
// plausible header, lies in the file and decodes, or -1 when none does
// within maxResync bytes. A block header starts with a non-zero event
// count, so offsets whose first four bytes are zero are skipped unread.
func (f *File) resync(from int64) int64 {
	size := int64(len(f.data))
	for o := from; o+schema.BlockHeaderSize <= size && o-from < maxResync; o++ {
		if f.data[o] == 0 && f.data[o+1] == 0 && f.data[o+2] == 0 && f.data[o+3] == 0 {
			continue
		}
		b, why := f.blockHeaderAt(o, 0)
		if why != "" || empty(&b) {
			continue
		}
		if _, err := f.Verify(&b); err == nil {
			return o
		}
	}
	return -1
}

// errHeaderDamage is the Kind of a block whose zstd frame passed its
// content checksum (the data is what the writer wrote) and whose events
// disagree with its inline header (their count, a cycle outside its
// range): the header is damaged, a flipped bit, which a cut cannot make.
var errHeaderDamage = errors.New("inline block header damaged")

// headerDamage marks err, ScanEvents' error for zstd block b, as
// errHeaderDamage when b's frame carries a content checksum, which the
// decoder verified (the first frame's Content_Checksum_flag: our writers'
// blocks are one frame).
func (f *File) headerDamage(b *Block, err error) error {
	var fe *schema.FormatError
	if IsRaw(b) || b.CompressedSize < 5 || !errors.As(err, &fe) || fe.Kind != nil {
		return err
	}
	if f.data[PayloadOff(b)+4]&4 != 0 { // Frame_Header_Descriptor
		fe.Kind = errHeaderDamage
	}
	return err
}

// isChecksumErr reports whether a block failed its checksum (ErrChecksum),
// a raw block of ours failed checkRawEvents, or a block's whole zstd
// frames hold another size than its inline header declares (a flipped bit
// in the header's uncompressed_size) or their checksummed events disagree
// with it (errHeaderDamage): damage, where other failures of a
// footer-less file's last blocks may be what a cut leaves.
func isChecksumErr(err error) bool {
	return errors.Is(err, ErrChecksum) || errors.Is(err, errRawDamage) || errors.Is(err, zdec.ErrDeclaredSize) ||
		errors.Is(err, errHeaderDamage)
}

// errUnverified marks a candidate the walk has not decoded yet.
var errUnverified = errors.New("not verified")

// verifyFrom verifies cands[from:] in parallel, setting errs and each
// candidate's Units, and returns the lowest failing index (len(cands) when
// none fails); candidates past it may be left unverified.
func (f *File) verifyFrom(cands []Block, errs []error, from int) int {
	rest := cands[from:]
	var wg sync.WaitGroup
	workers := min(f.opts.Decoders, len(rest), f.Verifiers(rest))
	next := atomic.Int64{}
	next.Store(int64(from))
	var bad atomic.Int64 // lowest failed candidate: the rest need no decoding
	bad.Store(int64(len(cands)))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) || int64(i) > bad.Load() {
					return
				}
				if cands[i].Units, errs[i] = f.Verify(&cands[i]); errs[i] != nil {
					for old := bad.Load(); int64(i) < old && !bad.CompareAndSwap(old, int64(i)); old = bad.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	return int(bad.Load())
}

// zeroTail returns how many of cands remain when the trailing empty blocks
// whose headers are all zero bytes are dropped.
func zeroTail(data []byte, cands []Block) int {
	n := len(cands)
	for n > 0 && cands[n-1].CompressedSize == 0 && allZero(data[HeaderOff(&cands[n-1]):PayloadOff(&cands[n-1])]) {
		n--
	}
	return n
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func newBlock(h schema.BlockHeader, index int, off int64) Block {
	return Block{Index: uint32(index), EventCount: h.EventCount, MinCycle: h.MinCycle, MaxCycle: h.MaxCycle,
		UncompressedSize: h.UncompressedSize, CompressedSize: h.CompressedSize, DataOffset: uint64(off)}
}
