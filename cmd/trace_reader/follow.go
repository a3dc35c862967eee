package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// Following a file while its writer appends to it.
//
// The writer's layout makes a growing file readable: the header and schema
// are on disk before the first block, each block is appended whole behind
// its 28-byte inline header, a schema that grows is written (into a slot or
// a schema frame) and the header pointed at it before any block that uses
// it, and the footer and the header's footer_offset come last, at Close.
//
// A follower walks the inline headers from where it stopped, then reads
// the header (after the walk, so the schema it names covers every block
// just seen), and decodes the new blocks by handing mmapio a small file made
// of the header, the current schema and those blocks: the same decoder and
// the same line rendering as dump, and each block is read once. A block
// whose bytes are not all there yet (a concurrent append) fails to decode
// and is retried at the next poll; once the footer is written, a block that
// still does not decode is an error naming its offset.

// followBatchBytes bounds the blocks read in one step, so that following a
// large file from the start does not hold all of it in memory.
const followBatchBytes = 32 << 20

// follower is the reading state of one growing file.
type follower struct {
	f       *os.File
	path    string
	next    int64 // offset of the next inline block header; 0 until the header says
	hdr     schema.Header
	schOff  uint64
	schema  []byte
	closed  bool  // the header has a footer
	done    bool  // closed, and every block before the footer was read
	stalled int   // polls in a row without progress on a closed file
	size    int64 // the file's size at the last poll: it never shrinks
	lastErr error
	// warn receives one line for each block the walk left out as damaged
	// (nil: no warnings).
	warn io.Writer
	// tornWarned is the block where the last warning said reading stops
	// (warnStop).
	tornWarned int64
	// witness holds the bytes at witOff just before next, as read
	// (checkRewritten).
	witness []byte
	witOff  int64
	// recSchema is the schema mmapio's recovery located when the header
	// names none (the original writer writes the header's offsets at Close).
	recSchema []byte
	// stuck is the block at next that did not decode, as last read: the
	// polls do not decode it again while it and the file stay as they were
	// (followStuck).
	stuck *followStuck
	// decodes counts the snapshots of blocks decoded (tests).
	decodes int
}

type followEntry struct {
	off, end int64 // the block's header and the end of its data
	frame    bool  // a schema frame: no events
}

func openFollower(path string) (*follower, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return &follower{f: f, path: path}, nil
}

func (fl *follower) Close() error { return fl.f.Close() }

// complete reports whether the file's writer has already closed it (its
// header names a footer).
func (fl *follower) complete() (bool, error) {
	st, err := fl.f.Stat()
	if err != nil {
		return false, fmt.Errorf("%s: %w", fl.path, err)
	}
	if st.Size() < schema.HeaderSize {
		return false, nil
	}
	var b [schema.HeaderSize]byte
	if _, err := fl.f.ReadAt(b[:], 0); err != nil {
		return false, fmt.Errorf("%s: header: %w", fl.path, err)
	}
	h, _ := schema.DecodeHeader(b[:])
	return h.Magic == schema.Magic && h.FooterOffset != 0, nil
}

// readHeader reads and checks the file header. A header that is not a
// .ctrace header is an error; one naming sections past the end of the file
// is taken as a race with the writer (ok false): the next poll looks again.
func (fl *follower) readHeader(size int64) (ok bool, err error) {
	if size < schema.HeaderSize {
		return false, nil
	}
	var b [schema.HeaderSize]byte
	if _, err := fl.f.ReadAt(b[:], 0); err != nil {
		return false, fmt.Errorf("%s: header: %w", fl.path, err)
	}
	h, _ := schema.DecodeHeader(b[:])
	if h.Magic != schema.Magic || h.VersionMajor != schema.VersionMajor {
		_, err := schema.ParseHeader(b[:], size)
		return false, fmt.Errorf("%s: %w", fl.path, err)
	}
	if _, err := schema.ParseHeader(b[:], size); err != nil {
		return false, nil
	}
	if h.SchemaSize > 64<<20 {
		return false, fmt.Errorf("%s: header at offset 16: schema size %d exceeds 64 MiB", fl.path, h.SchemaSize)
	}
	if h.SchemaSize == 0 && fl.recSchema != nil {
		fl.schema = fl.recSchema // a killed original writer's file: the schema recovery found
	} else if h.SchemaOffset != fl.schOff || uint64(len(fl.schema)) != h.SchemaSize {
		s := make([]byte, h.SchemaSize)
		if _, err := fl.f.ReadAt(s, int64(h.SchemaOffset)); err != nil {
			return false, fmt.Errorf("%s: schema at offset %d: %w", fl.path, h.SchemaOffset, err)
		}
		fl.schema, fl.schOff = s, h.SchemaOffset
	}
	fl.hdr = h
	fl.closed = h.FooterOffset != 0
	return true, nil
}

// firstBlock finds the first block of a file whose header does not say
// where it is (0: none yet).
func (fl *follower) firstBlock() (int64, error) {
	r, err := mmapio.Open(fl.path)
	if err != nil {
		return 0, nil // still too short to recover: look again at the next poll
	}
	defer r.Close()
	if off, size := rawread.File(r).SchemaSection(); fl.hdr.SchemaSize == 0 && off > 0 && size > 0 && size <= 64<<20 {
		b := make([]byte, size)
		if _, err := fl.f.ReadAt(b, off); err != nil {
			return 0, fmt.Errorf("%s: schema at offset %d: %w", fl.path, off, err)
		}
		fl.recSchema, fl.schema = b, b
	}
	if blocks := r.Blocks(); len(blocks) > 0 {
		first := blocks[0].DataOffset
		for _, b := range blocks {
			first = min(first, b.DataOffset)
		}
		return int64(first), nil
	}
	return 0, nil
}

// walk lists the blocks whose header and data lie within size, from next on.
func (fl *follower) walk(size int64) ([]followEntry, error) {
	var out []followEntry
	var b [schema.BlockHeaderSize]byte
	off := fl.next
	for off+schema.BlockHeaderSize <= size && off-fl.next < followBatchBytes {
		if fl.closed && off >= int64(fl.hdr.FooterOffset) {
			break
		}
		if _, err := fl.f.ReadAt(b[:], off); err != nil {
			return nil, fmt.Errorf("%s: block header at offset %d: %w", fl.path, off, err)
		}
		bh, _ := schema.DecodeBlockHeader(b[:])
		frame := bh.EventCount == 0 && bh.UncompressedSize == 0 && bh.CompressedSize > 0
		if !frame && bh.Plausible() != "" {
			break // not written yet, or the footer: the header will tell
		}
		end := off + schema.BlockHeaderSize + int64(bh.CompressedSize)
		if end > size && !frame {
			break
		}
		out = append(out, followEntry{off, end, frame})
		off = end
	}
	return out, nil
}

// step reads what was appended since the last step and returns a reader of
// the new blocks (nil when there are none).
func (fl *follower) step() (*mmapio.Reader, error) {
	st, err := fl.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fl.path, err)
	}
	size := st.Size()
	if err := fl.checkSame(st); err != nil {
		return nil, err
	}
	if err := fl.checkRewritten(); err != nil {
		return nil, err
	}
	if fl.next == 0 {
		ok, err := fl.readHeader(size)
		if !ok || err != nil {
			return nil, err
		}
		if fl.next = int64(fl.hdr.FirstBlockOffset); fl.next == 0 {
			// The original writer leaves it zero until Close, and a file
			// without a schema may have none: mmapio's recovery finds the
			// first block.
			if fl.next, err = fl.firstBlock(); fl.next == 0 || err != nil {
				return nil, err
			}
		}
	}
	if fl.closed && fl.next >= int64(fl.hdr.FooterOffset) {
		fl.done = true
		return nil, nil
	}
	var entries []followEntry
	if same, err := fl.stillStuck(st); err != nil {
		return nil, err
	} else if !same {
		if entries, err = fl.walk(size); err != nil {
			return nil, err
		}
	}
	if ok, err := fl.readHeader(size); !ok || err != nil {
		return nil, err
	}
	for len(entries) > 0 && fl.closed && entries[len(entries)-1].end > int64(fl.hdr.FooterOffset) {
		entries = entries[:len(entries)-1] // walked into the footer before the header said so
	}
	r, err := fl.decode(entries)
	if err != nil {
		return nil, err
	}
	if fl.closed {
		switch {
		case fl.next >= int64(fl.hdr.FooterOffset):
			fl.done = r == nil
		case r == nil:
			// The writer has finished, yet the next block does not read.
			if fl.stalled++; fl.stalled >= 3 {
				why := "not a complete block"
				if fl.lastErr != nil {
					why = fl.lastErr.Error()
				} else if fl.stuck != nil && fl.stuck.why != "" {
					why = fl.stuck.why
				}
				return nil, fmt.Errorf("%s: block at offset %d (the footer is at %d): %s", fl.path, fl.next, fl.hdr.FooterOffset, why)
			}
		default:
			fl.stalled = 0
		}
	}
	return r, nil
}

// decode opens the event blocks of entries as a file of their own and
// moves next past those that decoded (and the frames between them).
func (fl *follower) decode(entries []followEntry) (*mmapio.Reader, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	start, end := entries[0].off, entries[len(entries)-1].end
	raw := make([]byte, end-start)
	if n, err := fl.f.ReadAt(raw, start); err != nil && !(errors.Is(err, io.EOF) && entries[len(entries)-1].frame) {
		return nil, fmt.Errorf("%s: blocks at offset %d: %w", fl.path, start, err)
	} else {
		raw = raw[:n]
	}
	h := fl.hdr
	h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(fl.schema))
	h.FirstBlockOffset = h.SchemaOffset + h.SchemaSize
	h.FooterOffset, h.FooterSize = 0, 0
	h.Flags &^= schema.FlagHasIndex
	if len(fl.schema) == 0 {
		h.SchemaOffset, h.Flags = 0, h.Flags&^schema.FlagHasSchema
	}
	if h.HasChecksums() {
		h.SchemaCRC = schema.CRC32C(fl.schema) // the schema this snapshot holds (AppendHeader sums the header)
	}
	file := schema.AppendHeader(make([]byte, 0, schema.HeaderSize+len(fl.schema)+len(raw)), h)
	file = append(file, fl.schema...)
	var ends []int64  // in the file, where each event block's entry (and the frames before it) ends
	var offs []int64  // in the file, where each event block starts
	var synth []int64 // in the snapshot, where each event block starts
	for _, e := range entries {
		if !e.frame {
			synth = append(synth, int64(len(file)))
			offs = append(offs, e.off)
			file = append(file, raw[e.off-start:e.end-start]...)
			ends = append(ends, e.end)
		}
	}
	if len(ends) == 0 { // frames only
		if entries[len(entries)-1].end <= fl.next+int64(len(raw)) {
			fl.next = entries[len(entries)-1].end
			fl.remember(raw, start)
		}
		return nil, nil
	}
	fl.decodes++
	r, err := mmapio.OpenBytes(fl.path, file)
	if err != nil {
		fl.lastErr = err // a schema caught mid-rewrite: the next poll reads it again
		return nil, nil
	}
	// The walk read or left out (damaged) every block before where it
	// stopped. A damaged block last of all may be one still being written:
	// it is looked at again at the next poll, unless the file is closed.
	st := r.Status()
	walked := len(ends)
	if st.TornBytes > 0 {
		walked, _ = slices.BinarySearch(synth, st.TornOffset)
	}
	damaged := map[int]string{} // block index in entries: why
	for _, d := range st.Damaged {
		if i, why, ok := damagedAt(d, synth); ok && i < walked {
			damaged[i] = why
		}
	}
	if _, ok := damaged[walked-1]; ok && walked == len(ends) && !fl.closed {
		walked--
	}
	fl.warnStop(st, offs, walked)
	fl.stuck = nil
	if walked < len(ends) { // block walked did not decode: reading resumes there
		from := fl.next
		if walked > 0 {
			from = ends[walked-1]
		}
		// Torn: damaged with whole blocks after it, as warnStop said; a
		// damaged block last of all may yet be followed by one, which
		// makes it a block left out.
		torn := tornByDamage(st) && walked+1 < len(offs)
		why := damaged[walked]
		if tornByDamage(st) {
			why = st.TornReason
		}
		fl.stuckAt(from, offs[walked], ends[walked], raw[offs[walked]-start:ends[walked]-start], torn, why)
	}
	if walked == 0 {
		r.Close()
		return nil, nil
	}
	for i := range walked {
		if why, ok := damaged[i]; ok && fl.warn != nil {
			fmt.Fprintf(fl.warn, "trace_reader: warning: %s: block at byte %d does not decode: %s: its events are left out\n", fl.path, offs[i], oneLine(why))
		}
	}
	fl.next = ends[walked-1]
	if walked == len(ends) {
		fl.next = end
	}
	fl.remember(raw, start)
	return r, nil
}

// warnStop says once, as dump says it, that reading stops at a block that
// does not decode, when whole blocks follow it (so it is not one still
// being written but a damaged one): nothing after it is printed.
func (fl *follower) warnStop(st mmapio.Status, offs []int64, walked int) {
	if fl.warn == nil || walked+1 >= len(offs) || !tornByDamage(st) || offs[walked] == fl.tornWarned {
		return
	}
	fl.tornWarned = offs[walked]
	_, why, _ := strings.Cut(st.TornReason, " does not decode")
	fmt.Fprintf(fl.warn, "trace_reader: warning: %s: the blocks from byte %d on are left out: block at byte %d does not decode%s\n",
		fl.path, offs[walked], offs[walked], oneLine(why))
}

// damagedAt reads an entry of Status.Damaged ("block at byte N does not
// decode: WHY") of a snapshot whose blocks start at synth: the block's
// index and why.
func damagedAt(d string, synth []int64) (int, string, bool) {
	rest, ok := strings.CutPrefix(d, "block at byte ")
	if !ok {
		return 0, "", false
	}
	num, why, ok := strings.Cut(rest, " does not decode: ")
	if !ok {
		return 0, "", false
	}
	off, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, "", false
	}
	i, found := slices.BinarySearch(synth, off)
	return i, why, found
}

// followTrace prints the events of a file as they are appended, in cycle
// order per unit (each batch of new blocks in cycle order), as dump prints
// them, until the writer closes the file or ctx is done. --cycles and
// --unit filter as in filter; a unit registered later is matched when its
// events arrive.
func followTrace(ctx context.Context, c *config, w io.Writer, every time.Duration) error {
	fl, err := openFollower(c.file)
	if err != nil {
		return err
	}
	defer fl.Close()
	fl.warn = c.warn
	matched := false
	err = fl.run(ctx, every, func(r *mmapio.Reader) error {
		q, ok := followQuery(c, r)
		if !ok {
			return nil
		}
		matched = true
		_, err := tracetext.WriteDump(w, r, q, 0)
		return err
	})
	if err == nil && !matched {
		err = fl.noUnit(c)
	}
	return err
}

// noUnit is dump's error for a --unit no unit matches, once the file is
// complete: while it is written, the unit may still be registered.
func (fl *follower) noUnit(c *config) error {
	if !c.hasUnit || !fl.done {
		return nil
	}
	sc := unitScope{files: c.files}
	if len(fl.schema) > 0 {
		s, _, err := schema.DecodeSchema(fl.schema, int64(fl.schOff))
		if err != nil {
			return fmt.Errorf("%s: %w", fl.path, err)
		}
		seen := map[uint16]bool{}
		for _, u := range s.Units {
			if c.unitMatches(u.Name) {
				return nil
			}
			if !seen[u.ID] && u.Name != "" {
				sc.names = append(sc.names, u.Name)
			}
			seen[u.ID] = true
		}
	}
	return noUnitError(c, sc)
}

// run calls f with each batch of new blocks until the file is complete.
func (fl *follower) run(ctx context.Context, every time.Duration, f func(*mmapio.Reader) error) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		r, err := fl.step()
		if err != nil {
			return err
		}
		if r != nil {
			err := f(r)
			r.Close()
			if err != nil {
				return err
			}
			continue // more may be waiting: a batch is bounded
		}
		if fl.done {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// followQuery is query() for one batch: no matching unit is not an error
// (its events may come later), only nothing to print now.
func followQuery(c *config, r *mmapio.Reader) (mmapio.Query, bool) {
	var q mmapio.Query
	if c.hasCycles {
		q = q.WithCycles(c.start, c.end)
	}
	if c.hasUnit {
		ids := unitIDs(c, r)
		if len(ids) == 0 {
			return q, false
		}
		q = q.WithUnits(ids...)
	}
	return q, true
}

// checkSame ends the follow when the file shrank since the last poll
// (truncated: the blocks read may no longer be there) or when its path
// now names another file (a new run replaced it, and the file followed,
// unlinked, will never grow again): follow the new one anew.
func (fl *follower) checkSame(st os.FileInfo) error {
	if st.Size() < fl.size {
		return fmt.Errorf("%s: the file shrank from %d to %d bytes while followed (truncated)", fl.path, fl.size, st.Size())
	}
	fl.size = st.Size()
	if now, err := os.Stat(fl.path); err == nil && !os.SameFile(st, now) {
		return fmt.Errorf("%s: replaced by another file while followed (a new run?): follow it again", fl.path)
	}
	return nil
}
