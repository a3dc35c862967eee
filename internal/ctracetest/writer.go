package ctracetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/schema"
)

// Options say which file layout Writer produces. The zero value writes a
// complete file with one global stream of raw 64 KiB blocks, a footer and
// unit sets.
type Options struct {
	// BlockSize is the target uncompressed size of a block (default 64 KiB):
	// a block is flushed before an event would make it larger.
	BlockSize int
	// PerUnit writes one block stream per unit, as our runtime writer does:
	// every block holds the events of one unit, and blocks of different
	// units overlap in cycles. Otherwise all events go into one stream in
	// the order they are added, as the original writer did.
	PerUnit bool
	// Compress stores blocks as zstd frames at Level (default SpeedDefault),
	// except blocks zstd does not make smaller, which stay raw.
	Compress bool
	Level    zstd.EncoderLevel
	// NoSchema writes no schema section (FLAG_HAS_SCHEMA clear).
	NoSchema bool
	// SchemaPad reserves that many zero bytes after the schema, as our
	// writer does to rewrite the schema in place.
	SchemaPad int
	// FinalSchema, when set, is written again after the last block and the
	// header points at it (a schema that grew during the run).
	FinalSchema *schema.Schema
	// NoFooter leaves the file as a killed writer of ours does: header
	// complete up to the first block, footer offsets zero, no footer.
	NoFooter bool
	// ZeroHeader leaves every header offset zero and writes no footer: what
	// the original writer left when killed before close.
	ZeroHeader bool
	// NoUnitSets omits BlockHeader.units from the footer (original writer).
	NoUnitSets bool
	// UnitStats records per-unit written counts (plus Dropped) in the footer.
	UnitStats bool
	Dropped   map[uint16]uint64
	// Created is the footer's created_timestamp (Unix seconds; 0 = none).
	Created time.Time
	// Truncate cuts the file to this many bytes at Close (0 = no cut).
	Truncate int64
}

// Target is where a Writer writes: sequential writes plus WriteAt to patch
// the header at close. *os.File and *MemFile implement it.
type Target interface {
	io.Writer
	io.WriterAt
}

// Truncater is implemented by targets that Options.Truncate can cut.
type Truncater interface {
	Truncate(size int64) error
}

// Writer writes one .ctrace file, synchronously and deterministically.
type Writer struct {
	t    Target
	bw   *bufio.Writer
	opts Options
	sch  *schema.Schema
	hdr  schema.Header
	off  int64 // bytes written so far
	enc  *zstd.Encoder
	fb   *flatbuffers.Builder

	streams map[uint16]*stream // PerUnit: by unit id
	global  stream
	blocks  []schema.BlockIndex
	evBlock []int // block index of each event, in Add order
	nEvents int
	written map[uint16]uint64
	total   uint64
	minC    uint64
	maxC    uint64
	err     error
	closed  bool
}

type stream struct {
	buf      []byte
	n        uint32
	min, max uint64
	units    []uint16
	seqs     []int // Add sequence numbers of the pending events
}

// NewWriter writes the header and schema of a new file to t.
func NewWriter(t Target, s *schema.Schema, opts Options) (*Writer, error) {
	if opts.BlockSize == 0 {
		opts.BlockSize = 64 << 10
	}
	if opts.BlockSize < schema.EventHeaderSize || opts.BlockSize > 1<<26 {
		return nil, fmt.Errorf("ctracetest: block size %d out of range", opts.BlockSize)
	}
	if opts.Level == 0 {
		opts.Level = zstd.SpeedDefault
	}
	if s == nil {
		s = &schema.Schema{}
	}
	w := &Writer{t: t, bw: bufio.NewWriterSize(t, 1<<20), opts: opts, sch: s, fb: flatbuffers.NewBuilder(1024),
		streams: map[uint16]*stream{}, written: map[uint16]uint64{}, minC: ^uint64(0)}
	if opts.Compress {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(opts.Level), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		w.enc = enc
	}
	flags := uint64(0)
	if opts.Compress {
		flags |= schema.FlagCompressed
	}
	if !opts.NoSchema {
		flags |= schema.FlagHasSchema
	}
	w.hdr = schema.NewHeader(flags)
	w.write(make([]byte, schema.HeaderSize)) // patched at close
	if !opts.NoSchema {
		sec := schema.BuildSchema(w.fb, s)
		w.hdr.SchemaOffset, w.hdr.SchemaSize = uint64(w.off), uint64(len(sec))
		w.write(sec)
		w.write(make([]byte, opts.SchemaPad))
	}
	w.hdr.FirstBlockOffset = uint64(w.off)
	// Like our runtime writer, the header is complete before the first
	// block, so a file cut anywhere later still says where blocks start.
	if opts.ZeroHeader {
		w.patchHeader(schema.NewHeader(flags)) // magic, version, flags; no offsets
	} else {
		w.patchHeader(w.hdr)
	}
	return w, w.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.off += int64(n)
	w.err = err
}

func (w *Writer) patchHeader(h schema.Header) {
	if w.err != nil {
		return
	}
	if w.err = w.bw.Flush(); w.err != nil {
		return
	}
	_, w.err = w.t.WriteAt(schema.AppendHeader(nil, h), 0)
}

// Add appends one event. Events of one stream must come in cycle order for
// the blocks to be sorted (the writer does not check).
func (w *Writer) Add(r schema.Record, args []byte) error {
	if w.closed {
		return errors.New("ctracetest: Add after Close")
	}
	if len(args) > schema.MaxArgsSize {
		return fmt.Errorf("ctracetest: %d bytes of args", len(args))
	}
	s := &w.global
	if w.opts.PerUnit {
		s = w.streams[r.SourceID]
		if s == nil {
			s = &stream{}
			w.streams[r.SourceID] = s
		}
	}
	size := schema.EventHeaderSize + len(args)
	if s.n > 0 && len(s.buf)+size > w.opts.BlockSize {
		w.flush(s)
	}
	if s.n == 0 {
		s.min, s.max = r.Cycle, r.Cycle
	}
	s.buf = schema.AppendEvent(s.buf, r, args)
	s.n++
	s.seqs = append(s.seqs, w.nEvents)
	w.nEvents++
	s.min, s.max = min(s.min, r.Cycle), max(s.max, r.Cycle)
	if !slices.Contains(s.units, r.SourceID) {
		s.units = append(s.units, r.SourceID)
	}
	w.written[r.SourceID]++
	return w.err
}

// flush writes the stream's pending events as one block.
func (w *Writer) flush(s *stream) {
	if s.n == 0 {
		return
	}
	data := s.buf
	if w.enc != nil {
		if c := w.enc.EncodeAll(s.buf, nil); len(c) < len(s.buf) {
			data = c
		}
	}
	bh := schema.BlockHeader{EventCount: s.n, MinCycle: s.min, MaxCycle: s.max,
		UncompressedSize: uint32(len(s.buf)), CompressedSize: uint32(len(data))}
	units := slices.Clone(s.units)
	slices.Sort(units)
	if w.opts.NoUnitSets {
		units = nil
	}
	w.blocks = append(w.blocks, schema.BlockIndex{Index: uint32(len(w.blocks)), EventCount: bh.EventCount,
		MinCycle: bh.MinCycle, MaxCycle: bh.MaxCycle, UncompressedSize: bh.UncompressedSize,
		CompressedSize: bh.CompressedSize, DataOffset: uint64(w.off), Units: units})
	for _, seq := range s.seqs {
		for len(w.evBlock) <= seq {
			w.evBlock = append(w.evBlock, -1)
		}
		w.evBlock[seq] = len(w.blocks) - 1
	}
	w.write(schema.AppendBlockHeader(nil, bh))
	w.write(data)
	w.total += uint64(s.n)
	w.minC, w.maxC = min(w.minC, s.min), max(w.maxC, s.max)
	s.buf, s.n, s.units, s.seqs = s.buf[:0], 0, s.units[:0], s.seqs[:0]
}

// Blocks returns the index entries of the blocks written so far (in file
// order: DataOffset increases).
func (w *Writer) Blocks() []schema.BlockIndex { return w.blocks }

// EventBlocks returns, after Close, the index of the block each event went
// into, in the order the events were added. Within a block, events keep the
// order they were added in.
func (w *Writer) EventBlocks() []int { return w.evBlock }

// Close flushes every stream (per-unit streams in unit id order), writes the
// final schema and footer as the options say, and patches the header.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.enc != nil {
		defer w.enc.Close()
	}
	w.flush(&w.global)
	ids := make([]uint16, 0, len(w.streams))
	for id := range w.streams {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		w.flush(w.streams[id])
	}
	h := w.hdr
	if w.opts.FinalSchema != nil && !w.opts.NoSchema {
		sec := schema.BuildSchema(w.fb, w.opts.FinalSchema)
		h.SchemaOffset, h.SchemaSize = uint64(w.off), uint64(len(sec))
		w.write(sec)
	}
	switch {
	case w.opts.ZeroHeader:
		// every offset stays zero: the header was never patched
	case w.opts.NoFooter:
		w.patchHeader(w.hdr)
	default:
		f := &schema.Footer{Blocks: w.blocks, TotalEvents: w.total}
		if len(w.blocks) > 0 {
			f.MinCycle, f.MaxCycle = w.minC, w.maxC
		}
		if !w.opts.Created.IsZero() {
			f.CreatedTimestamp = uint64(w.opts.Created.Unix())
		}
		if w.opts.UnitStats {
			for _, u := range w.sch.Units {
				n := w.written[u.ID]
				d := w.opts.Dropped[u.ID]
				f.UnitStats = append(f.UnitStats, schema.UnitStat{UnitID: u.ID, Emitted: n + d, Written: n, Dropped: d})
			}
		}
		sec := schema.BuildFooter(w.fb, f)
		h.FooterOffset, h.FooterSize = uint64(w.off), uint64(len(sec))
		h.Flags |= schema.FlagHasIndex
		w.write(sec)
		w.patchHeader(h)
	}
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	if w.opts.Truncate > 0 && w.err == nil {
		t, ok := w.t.(Truncater)
		if !ok {
			return errors.New("ctracetest: Truncate needs a target with Truncate")
		}
		w.err = t.Truncate(w.opts.Truncate)
	}
	return w.err
}

// Event is one event for Build.
type Event struct {
	schema.Record
	Args []byte
}

// Build writes a whole file to memory.
func Build(s *schema.Schema, events []Event, opts Options) ([]byte, error) {
	b, _, err := BuildLayout(s, events, opts)
	return b, err
}

// Layout says where Build put things: the blocks (file order) and the block
// of each event.
type Layout struct {
	Blocks      []schema.BlockIndex
	EventBlocks []int
}

// BuildLayout is Build that also returns the layout of the file.
func BuildLayout(s *schema.Schema, events []Event, opts Options) ([]byte, Layout, error) {
	var f MemFile
	w, err := NewWriter(&f, s, opts)
	if err != nil {
		return nil, Layout{}, err
	}
	for _, e := range events {
		if err := w.Add(e.Record, e.Args); err != nil {
			return nil, Layout{}, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, Layout{}, err
	}
	return f.Bytes(), Layout{Blocks: w.Blocks(), EventBlocks: w.EventBlocks()}, nil
}

// MemFile is an in-memory Target.
type MemFile struct {
	b []byte
}

func (f *MemFile) Write(p []byte) (int, error) {
	f.b = append(f.b, p...)
	return len(p), nil
}

func (f *MemFile) WriteAt(p []byte, off int64) (int, error) {
	if end := off + int64(len(p)); end > int64(len(f.b)) {
		f.b = append(f.b, make([]byte, end-int64(len(f.b)))...)
	}
	copy(f.b[off:], p)
	return len(p), nil
}

func (f *MemFile) Truncate(n int64) error {
	if n < int64(len(f.b)) {
		f.b = f.b[:n]
	}
	return nil
}

// Bytes returns the file's contents.
func (f *MemFile) Bytes() []byte { return f.b }
