package chronon

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/chronon-sim/chronon-go/schema"
)

// fileWriter owns the output file and knows nothing else: the tracer hands
// it each block's bytes with what the footer needs of it, schema snapshots
// when units or formats were registered, and the unit statistics at Close
// (tracer_file.go); it reports its first error to onErr. Only the writer
// goroutine calls it (createFile runs before that goroutine starts).
//
// Layout it produces (docs/format.md draws it):
//
//	0        header (64 bytes)
//	64       schema slot A  \ two slots of slotSize bytes: the schema is
//	64+S     schema slot B  / rewritten into the idle slot, then the header
//	64+2S    block 0, block 1, ...   each [28-byte inline header][data]
//	         schema frame: an empty block whose data is a zstd skippable
//	         frame holding two new, larger slots, when the schema outgrew
//	         the slots it had (then more blocks, maybe more frames)
//	         footer
//
// Crash safety: the header with correct schema and first-block offsets is on
// disk before the first block; blocks are appended in order, a batch of
// them with one write (queueBlock, flushBlocks), so a killed process leaves
// every complete block readable by walking the inline headers (and at most
// a torn last one); a schema rewrite goes to a slot the header does not point at
// (the idle one, or one in a newly appended frame), and only then is the
// header switched to it, before any block that may use what it names.
type fileWriter struct {
	f     outFile
	path  string
	hdr   schema.Header
	off   int64 // append position
	err   error // first error; nothing is written after it
	onErr func(error)

	reserve   int64 // configured slot size; 0: sized from the first schema
	started   bool  // schema and header written, blocks follow
	slots     int64 // offset of slot A of the current pair
	slotSize  int64
	slot      int    // slot of the pair the header points at
	schemaGen uint64 // generation of the schema on disk
	frames    int    // schema frames appended
	fb        *flatbuffers.Builder

	wbFrom    int64 // start of the appended bytes not yet handed to writeback
	wbStopped bool

	// Blocks queued for the next flushBlocks (queueBlock): their bytes,
	// the callers', and what the footer will need of them; w.off is past
	// them already.
	pend     [][]byte
	pendRecs []blockRec

	blocks   blockIndex
	total    uint64
	minCycle uint64
	maxCycle uint64
}

// outFile is what the writer needs of the output file; tests substitute
// one that fails.
type outFile interface {
	WriteAt(b []byte, off int64) (int, error)
	Sync() error
	Close() error
}

// openOutput opens the output file (a variable so tests can inject failures).
var openOutput = func(path string) (outFile, error) {
	f, err := createOutput(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// createFile opens path and writes the placeholder header: a reader of a
// file killed before the first block sees a valid, empty trace.
func createFile(path string, compressed bool, reserve int, onErr func(error)) (*fileWriter, error) {
	f, err := openOutput(path)
	if err != nil {
		return nil, fmt.Errorf("chronon: %w", err)
	}
	flags := schema.FlagHasIndex | schema.FlagHasSchema | schema.FlagChecksums
	if compressed {
		flags |= schema.FlagCompressed
	}
	w := &fileWriter{f: f, path: path, hdr: schema.NewHeader(flags), off: schema.HeaderSize, onErr: onErr,
		reserve: int64(reserve), fb: flatbuffers.NewBuilder(4096), minCycle: ^uint64(0)}
	if _, err := f.WriteAt(schema.AppendHeader(nil, w.hdr), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("chronon: writing header of %s: %w", path, err)
	}
	return w, nil
}

// fail records the first I/O error; later writes are skipped.
func (w *fileWriter) fail(what string, err error) {
	if w.err == nil {
		w.err = fmt.Errorf("chronon: %s %s: %w", what, w.path, err)
		if w.onErr != nil {
			w.onErr(w.err)
		}
	}
}

// size is the file's length so far.
func (w *fileWriter) size() int64 { return w.off }

// schemaCurrent reports whether the schema of generation gen is on disk.
func (w *fileWriter) schemaCurrent(gen uint64) bool { return w.started && w.schemaGen == gen }

func (w *fileWriter) writeHeader() {
	if w.err != nil {
		return
	}
	if _, err := w.f.WriteAt(schema.AppendHeader(nil, w.hdr), 0); err != nil {
		w.fail("writing header of", err)
	}
}

// slotSizeFor is the slot size for a schema of n bytes: room for four times
// it, at least 4 KiB. Each new pair is sized so, which makes the frames'
// total a small multiple of the final schema however it grows.
func slotSizeFor(n int) int64 { return max(4096, (4*int64(n)+4095)&^4095) }

// writeSchema puts the schema s (of generation gen) on disk and points the
// header at it: before the first block into slot A after the header; later
// into the idle slot of the current pair, or, when it no longer fits there,
// into a new pair appended as a schema frame.
func (w *fileWriter) writeSchema(s *schema.Schema, gen uint64) {
	if !w.flushBlocks() {
		return
	}
	b := schema.BuildSchema(w.fb, s)
	var at int64
	switch {
	case !w.started:
		w.started = true
		w.slots, w.slotSize = schema.HeaderSize, w.reserve
		if w.slotSize == 0 {
			w.slotSize = slotSizeFor(len(b))
		}
		w.slotSize = max(w.slotSize, int64(len(b)))
		at = w.slots
		w.hdr.FirstBlockOffset = uint64(w.slots + 2*w.slotSize)
		w.off = int64(w.hdr.FirstBlockOffset)
		w.wbFrom = w.off
	case int64(len(b)) <= w.slotSize:
		w.slot = 1 - w.slot
		at = w.slots + int64(w.slot)*w.slotSize
	default:
		at = w.appendFrame(b)
	}
	if w.err != nil {
		return
	}
	if _, err := w.f.WriteAt(b, at); err != nil {
		w.fail("writing schema of", err)
		return
	}
	w.schemaGen = gen
	w.hdr.SchemaOffset, w.hdr.SchemaSize = uint64(at), uint64(len(b))
	w.hdr.SchemaCRC = schema.CRC32C(b)
	w.writeHeader()
}

// schemaFrameMagic is the zstd skippable-frame magic of schema frames
// (0x184D2A50..5F are skippable; C for Chronon).
const schemaFrameMagic = 0x184D2A5C

// schemaFrameHeader is the frame's magic and payload length.
const schemaFrameHeader = 8

// appendFrame appends an empty block whose data is a zstd skippable frame
// with room for two slots sized for a schema of len(b) bytes, makes them the
// current pair and returns the offset of its slot A, where b goes. Any zstd
// decoder decodes the frame to 0 bytes, so the block is a valid block of no
// events for a reader walking inline headers; the footer does not list it,
// so a reader of the index never sees it (docs/format.md). Only the block
// header, the frame header and b are written: the rest of the slots is a
// hole until the next block is appended after it.
func (w *fileWriter) appendFrame(b []byte) int64 {
	slot := slotSizeFor(len(b))
	if schemaFrameHeader+2*slot > math.MaxUint32 {
		slot = int64(len(b)) // no spare room rather than no frame
	}
	if schemaFrameHeader+2*slot > math.MaxUint32 {
		w.fail("writing schema of", fmt.Errorf("a schema of %d bytes does not fit a schema frame", len(b)))
		return 0
	}
	hdr := make([]byte, schema.BlockHeaderSize, schema.BlockHeaderSize+schemaFrameHeader)
	schema.PutBlockHeader(hdr, schema.BlockHeader{CompressedSize: uint32(schemaFrameHeader + 2*slot)})
	hdr = binary.LittleEndian.AppendUint32(hdr, schemaFrameMagic)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(2*slot))
	if _, err := w.f.WriteAt(hdr, w.off); err != nil {
		w.fail("writing schema frame of", err)
		return 0
	}
	// A block stored raw has equal sizes; this one has usize 0 < csize, so
	// it is zstd data and the header must say the file is compressed even
	// when every event block is raw (raw blocks read the same either way).
	w.hdr.Flags |= schema.FlagCompressed
	w.slots, w.slotSize, w.slot = w.off+int64(len(hdr)), slot, 0
	w.off = w.slots + 2*slot
	w.frames++
	return w.slots
}

// queueBlock appends one block, out being its inline header and data, to
// the blocks the next flushBlocks writes, and reports whether it was
// queued. The caller has put on disk the schema that names the block's
// units and formats, and keeps out unchanged until flushBlocks returns.
func (w *fileWriter) queueBlock(out []byte, rec blockRec) bool {
	if w.err != nil || !w.started {
		return false
	}
	rec.crc = schema.BlockCRC(out) // the footer's check of the block's every byte
	rec.off = uint64(w.off)
	rec.csize = uint32(len(out) - schema.BlockHeaderSize)
	w.pend = append(w.pend, out)
	w.pendRecs = append(w.pendRecs, rec)
	w.off += int64(len(out))
	return true
}

// pending is the number of queued blocks and their bytes.
func (w *fileWriter) pending() (blocks int, bytes int64) {
	if len(w.pendRecs) == 0 {
		return 0, 0
	}
	return len(w.pendRecs), w.off - int64(w.pendRecs[0].off)
}

// flushBlocks writes the queued blocks with one vectored write (one
// pwritev on Unix: ext4 journals the file's mtime once per write call,
// which made a write per block cost about 13 us of system time) and records
// them for the footer; false, with the error kept, when they could not be
// written. A kill during the write leaves a prefix of them, the last maybe
// torn, which readers recover as they recover a torn last block.
func (w *fileWriter) flushBlocks() bool {
	if len(w.pendRecs) == 0 {
		return w.err == nil
	}
	from := int64(w.pendRecs[0].off)
	err := writeVecAt(w.f, w.pend, from)
	clear(w.pend) // no references to the callers' buffers
	w.pend = w.pend[:0]
	recs := w.pendRecs
	w.pendRecs = recs[:0]
	if err != nil {
		w.fail("writing block to", err)
		return false
	}
	for _, rec := range recs {
		w.blocks.add(rec)
		w.total += uint64(rec.events)
		w.minCycle = min(w.minCycle, rec.minCycle)
		w.maxCycle = max(w.maxCycle, rec.maxCycle)
	}
	if wb, ok := w.f.(writebacker); ok && w.off-w.wbFrom >= writebackEvery {
		wb.startWriteback(w.wbFrom, w.off-w.wbFrom)
		w.wbFrom = w.off
	}
	return true
}

func (w *fileWriter) sync() {
	if w.err == nil {
		if err := w.f.Sync(); err != nil {
			w.fail("syncing", err)
		}
	}
}

// finish writes what Close owes the file: the schema s of generation gen
// when it is not on disk yet (nil when it is), the footer with stats and
// the final header; then fsync and close.
//
// The caller has flushed the queued blocks (flushBlocks).
func (w *fileWriter) finish(s *schema.Schema, gen uint64, stats []schema.UnitStat) {
	defer func() {
		w.stopWriteback() // on the error paths; a no-op once stopped
		if err := w.f.Close(); err != nil {
			w.fail("closing", err)
		}
		if r, ok := w.f.(releaser); ok {
			r.waitReleased()
		}
	}()
	if w.err != nil {
		return
	}
	if !w.started {
		// No block: schema right after the header, footer right after it.
		b := schema.BuildSchema(w.fb, s)
		w.started = true
		if _, err := w.f.WriteAt(b, schema.HeaderSize); err != nil {
			w.fail("writing schema of", err)
			return
		}
		w.hdr.SchemaOffset, w.hdr.SchemaSize = schema.HeaderSize, uint64(len(b))
		w.hdr.SchemaCRC = schema.CRC32C(b)
		w.off = schema.HeaderSize + int64(len(b))
		w.hdr.FirstBlockOffset = uint64(w.off)
	} else if s != nil {
		w.writeSchema(s, gen)
		if w.err != nil {
			return
		}
	}
	footer := &schema.Footer{
		TotalEvents:      w.total,
		CreatedTimestamp: uint64(time.Now().Unix()),
		UnitStats:        stats,
		HasCRC:           true, // every block's CRC32C, and the footer's own
	}
	n := w.blocks.len()
	if n > 0 {
		footer.MinCycle, footer.MaxCycle = w.minCycle, w.maxCycle
	}
	// Sized for the footer (~68 bytes per block entry with its crc32c), so
	// that building it does not double its buffer up to twice that.
	fb := w.fb
	if est := 72*n + 48*len(stats) + 256; est > len(fb.Bytes) {
		fb = flatbuffers.NewBuilder(est)
	}
	var units [1]uint16
	b := schema.BuildFooterFrom(fb, footer, n, func(i int, bi *schema.BlockIndex) { w.blocks.entry(i, bi, &units) })
	if _, err := w.f.WriteAt(b, w.off); err != nil {
		w.fail("writing footer of", err)
		return
	}
	w.hdr.FooterOffset, w.hdr.FooterSize = uint64(w.off), uint64(len(b))
	w.off += int64(len(b))
	w.writeHeader()
	w.stopWriteback()
	w.sync()
}

// stopWriteback ends the background fsyncs (output.go) and keeps their
// first error.
func (w *fileWriter) stopWriteback() {
	if wb, ok := w.f.(writebacker); ok && !w.wbStopped {
		w.wbStopped = true
		if err := wb.stopWriteback(); err != nil {
			w.fail("syncing", err)
		}
	}
}
