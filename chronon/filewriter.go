package chronon

import (
	"fmt"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/chronon-sim/chronon-go/schema"
)

// fileWriter owns the output file; only the writer goroutine calls it
// (createFile runs before that goroutine starts).
//
// Layout it produces (docs/format.md draws it):
//
//	0        header (64 bytes)
//	64       schema slot A  \ two slots of slotSize bytes: the schema is
//	64+S     schema slot B  / rewritten into the idle slot, then the header
//	64+2S    block 0, block 1, ...   each [28-byte inline header][data]
//	         final schema (only if it outgrew the slots)
//	         footer
//
// Crash safety: the header with correct schema and first-block offsets is on
// disk before the first block; each block is appended with one write, so a
// killed process leaves every complete block readable by walking the inline
// headers; a schema rewrite goes to the slot the header does not point at,
// and only then is the header switched to it.
type fileWriter struct {
	t    *Tracer
	f    outFile
	path string
	hdr  schema.Header
	off  int64 // append position
	err  error // first error; nothing is written after it

	started   bool // schema and header written, blocks follow
	slotSize  int64
	slot      int    // slot the header points at
	schemaGen uint64 // generation of the schema on disk
	overflow  bool   // the schema outgrew the slots: Close appends it
	fb        *flatbuffers.Builder

	wbFrom    int64 // start of the appended bytes not yet handed to writeback
	wbStopped bool

	blocks   []schema.BlockIndex
	units    []uint16 // backing for the blocks' one-unit sets
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

func createFile(t *Tracer, path string) (*fileWriter, error) {
	f, err := openOutput(path)
	if err != nil {
		return nil, fmt.Errorf("chronon: %w", err)
	}
	flags := schema.FlagHasIndex | schema.FlagHasSchema
	if t.cfg.level != LevelNone {
		flags |= schema.FlagCompressed
	}
	w := &fileWriter{t: t, f: f, path: path, hdr: schema.NewHeader(flags), off: schema.HeaderSize,
		fb: flatbuffers.NewBuilder(4096), minCycle: ^uint64(0)}
	// The placeholder header: a reader of a file killed before the first
	// block sees a valid, empty trace.
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
		w.t.setErr(w.err)
	}
}

func (w *fileWriter) gen() uint64 { return registry.gen.Load() + w.t.gen.Load() }

// currentSchema snapshots everything registered so far and returns it with
// its generation; the caller records the generation once it is on disk.
func (w *fileWriter) currentSchema() ([]byte, uint64) {
	t := w.t
	gen := w.gen() // before the snapshot: a registration racing with it shows up as a newer generation
	s := &schema.Schema{
		Version:        1,
		Categories:     categoriesSnapshot(),
		SimulationName: t.cfg.simulationName,
		ConfigHash:     t.cfg.configHash,
		Metadata:       t.metadata,
		Writer:         writerName,
	}
	for _, f := range formatsSnapshot() {
		s.Formats = append(s.Formats, f.info)
	}
	for _, u := range t.unitList() {
		s.Units = append(s.Units, schema.Unit{ID: u.id, Name: u.name, TypeName: u.typeName})
	}
	return schema.BuildSchema(w.fb, s), gen
}

func (w *fileWriter) writeHeader() {
	if w.err != nil {
		return
	}
	if _, err := w.f.WriteAt(schema.AppendHeader(nil, w.hdr), 0); err != nil {
		w.fail("writing header of", err)
	}
}

// start writes the schema into slot A and the header that points at it,
// before the first block.
func (w *fileWriter) start() {
	w.started = true
	b, gen := w.currentSchema()
	w.slotSize = int64(w.t.cfg.schemaReserve)
	if w.slotSize == 0 {
		w.slotSize = max(4096, (4*int64(len(b))+4095)&^4095)
	}
	w.slotSize = max(w.slotSize, int64(len(b)))
	if _, err := w.f.WriteAt(b, schema.HeaderSize); err != nil {
		w.fail("writing schema of", err)
		return
	}
	w.schemaGen = gen
	w.hdr.SchemaOffset, w.hdr.SchemaSize = schema.HeaderSize, uint64(len(b))
	w.hdr.FirstBlockOffset = uint64(schema.HeaderSize + 2*w.slotSize)
	w.off = int64(w.hdr.FirstBlockOffset)
	w.wbFrom = w.off
	w.writeHeader()
}

// refreshSchema rewrites the schema into the idle slot when units or formats
// were registered since it was written, so that a block that may use them is
// never on disk before their names. A schema that outgrew the slots waits
// for Close, which appends it.
func (w *fileWriter) refreshSchema() {
	if w.overflow || w.gen() == w.schemaGen {
		return
	}
	b, gen := w.currentSchema()
	if int64(len(b)) > w.slotSize {
		w.overflow = true
		return
	}
	idle := 1 - w.slot
	off := schema.HeaderSize + int64(idle)*w.slotSize
	if _, err := w.f.WriteAt(b, off); err != nil {
		w.fail("rewriting schema of", err)
		return
	}
	w.slot = idle
	w.schemaGen = gen
	w.hdr.SchemaOffset, w.hdr.SchemaSize = uint64(off), uint64(len(b))
	w.writeHeader()
}

// writeBlock appends one block; false when it was not written.
func (w *fileWriter) writeBlock(r *result) bool {
	if w.err != nil {
		return false
	}
	if !w.started {
		w.start()
	} else {
		w.refreshSchema()
	}
	if w.err != nil {
		return false
	}
	at := w.off
	if _, err := w.f.WriteAt(r.out, at); err != nil { // one pwrite per block: a kill leaves whole blocks
		w.fail("writing block to", err)
		return false
	}
	w.off += int64(len(r.out))
	w.t.fileBytes.Store(w.off)
	if wb, ok := w.f.(writebacker); ok && w.off-w.wbFrom >= writebackEvery {
		wb.startWriteback(w.wbFrom, w.off-w.wbFrom)
		w.wbFrom = w.off
	}
	w.units = append(w.units, r.unit.id)
	w.blocks = append(w.blocks, schema.BlockIndex{
		Index:            uint32(len(w.blocks)),
		EventCount:       r.events,
		MinCycle:         r.minCycle,
		MaxCycle:         r.maxCycle,
		UncompressedSize: r.usize,
		CompressedSize:   uint32(len(r.out) - schema.BlockHeaderSize),
		DataOffset:       uint64(at),
		Units:            w.units[len(w.units)-1 : len(w.units) : len(w.units)],
	})
	w.total += uint64(r.events)
	w.minCycle = min(w.minCycle, r.minCycle)
	w.maxCycle = max(w.maxCycle, r.maxCycle)
	return true
}

func (w *fileWriter) sync() {
	if w.err == nil {
		if err := w.f.Sync(); err != nil {
			w.fail("syncing", err)
		}
	}
}

// finish writes what Close owes the file: the schema if it changed (or was
// never written), the footer and the final header; then fsync and close.
func (w *fileWriter) finish() {
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
		b, _ := w.currentSchema()
		w.started = true
		if _, err := w.f.WriteAt(b, schema.HeaderSize); err != nil {
			w.fail("writing schema of", err)
			return
		}
		w.hdr.SchemaOffset, w.hdr.SchemaSize = schema.HeaderSize, uint64(len(b))
		w.off = schema.HeaderSize + int64(len(b))
		w.hdr.FirstBlockOffset = uint64(w.off)
	} else if w.gen() != w.schemaGen {
		w.refreshSchema()
		if w.gen() != w.schemaGen { // outgrew the slots: append it
			b, _ := w.currentSchema()
			if _, err := w.f.WriteAt(b, w.off); err != nil {
				w.fail("writing final schema of", err)
				return
			}
			w.hdr.SchemaOffset, w.hdr.SchemaSize = uint64(w.off), uint64(len(b))
			w.off += int64(len(b))
		}
	}
	footer := &schema.Footer{
		Blocks:           w.blocks,
		TotalEvents:      w.total,
		CreatedTimestamp: uint64(time.Now().Unix()),
	}
	if len(w.blocks) > 0 {
		footer.MinCycle, footer.MaxCycle = w.minCycle, w.maxCycle
	}
	for _, u := range w.t.unitList() {
		dropped := u.ring.hdr.dropped.Load() + u.lost.Load()
		written := u.written.Load()
		footer.UnitStats = append(footer.UnitStats, schema.UnitStat{UnitID: u.id, Emitted: written + dropped, Written: written, Dropped: dropped})
	}
	b := schema.BuildFooter(w.fb, footer)
	if _, err := w.f.WriteAt(b, w.off); err != nil {
		w.fail("writing footer of", err)
		return
	}
	w.hdr.FooterOffset, w.hdr.FooterSize = uint64(w.off), uint64(len(b))
	w.off += int64(len(b))
	w.t.fileBytes.Store(w.off)
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
