package tracefile

import (
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/schema"
)

// File is one opened .ctrace file: its mapping, header, schema, footer and
// block table, validated. A File may be used by several goroutines at once;
// Close must not race with the use of anything it returned.
type File struct {
	path string
	m    *mapping
	data []byte
	opts Options

	hdr           schema.Header
	sch           *schema.Schema
	schemaOff     int64 // -1 when the file has no schema
	schemaSize    int64
	schemaLocated bool           // found after the header, not at the header's offsets
	footer        *schema.Footer // nil for a recovered file; Blocks filled by Footer()
	footerOnce    sync.Once
	blocks        blockTable
	status        Status
	unitSets      bool       // every block records its units
	rawFmts       rawFormats // argument types by format id, for checkRawEvents

	byMin   []int32  // block indices sorted by (MinCycle, Offset)
	prefMax []uint64 // prefMax[i] = max MaxCycle of byMin[:i+1]
	rank    []uint32 // rank of each block by file offset (the merge's tie order); nil: the index

	decodes atomic.Int64 // blocks decoded for queries (tests check seeks decode only what they need)

	// mapMu guards the mapping against Close: the footer's block index is
	// read in place, so everything that reads it outside what Close's
	// caller stops first holds mapMu for reading (RLock) and checks that
	// the mapping is still there; Close unmaps under the write lock.
	mapMu    sync.RWMutex
	unmapped bool

	mu  sync.Mutex
	err error // first error a read of the file met (see Err)
}

// Path returns the file name the File was opened with.
func (f *File) Path() string { return f.path }

// Size returns the file size in bytes.
func (f *File) Size() int64 { return int64(len(f.data)) }

// Data returns the mapped bytes of the file; nil after Close. Reads of it
// may fault when the file shrinks (see Guard).
func (f *File) Data() []byte { return f.data }

// Options returns the options the File was opened with.
func (f *File) Options() Options { return f.opts }

// Header returns the 64-byte file header as stored (a recovered file's may
// hold zero offsets).
func (f *File) Header() schema.Header { return f.hdr }

// Schema returns the decoded schema; it is empty (never nil) for a file
// without one.
func (f *File) Schema() *schema.Schema { return f.sch }

// SchemaSection returns the offset and size of the schema FlatBuffer the
// file was read with, or -1, 0 when there is none.
func (f *File) SchemaSection() (offset, size int64) { return f.schemaOff, f.schemaSize }

// Footer returns the decoded footer, or nil for a recovered file. Its
// Blocks are decoded from the mapping on the first call (the table reads
// them in place; see Blocks).
func (f *File) Footer() *schema.Footer {
	if f.footer == nil {
		return nil
	}
	f.footerOnce.Do(func() { f.footer.Blocks = f.Blocks() })
	return f.footer
}

// RLock takes the mapping for reading; false (lock not held) when Close
// has unmapped it. RUnlock gives it back.
func (f *File) RLock() bool {
	f.mapMu.RLock()
	if f.unmapped {
		f.mapMu.RUnlock()
		return false
	}
	return true
}

// RUnlock gives back what RLock took.
func (f *File) RUnlock() { f.mapMu.RUnlock() }

// Status reports whether the file was complete or recovered.
func (f *File) Status() Status { return f.status }

// Blocks returns the blocks in file order. The slice is shared: do not
// modify it. For a file with a footer it is decoded from the mapping on the
// first call (64 bytes per block plus unit lists); iteration and queries do
// not need it, they read the footer in place.
// After Close it returns what was decoded before (nil if nothing was).
// If the file shrank under the mapping it returns nil and Err reports the
// *FaultError.
func (f *File) Blocks() (blocks []Block) {
	if !f.RLock() {
		return f.blocks.decoded()
	}
	defer f.RUnlock()
	var err error
	defer f.Guard(&err, PanicOnFault()) // a fault: nil, and Err reports it
	return f.blocks.blocks()
}

// BlocksLocked is Blocks for a caller that holds RLock and guards faults
// (Guard) itself: a fault reading the footer panics through to it.
func (f *File) BlocksLocked() []Block { return f.blocks.blocks() }

// NumBlocks returns the number of blocks without decoding them.
func (f *File) NumBlocks() int { return f.blocks.len() }

// HasUnitSets reports whether every block records the units it holds, so a
// unit query can skip blocks without decoding them.
func (f *File) HasUnitSets() bool { return f.unitSets }

// UnitStats returns the per-unit counts the writer recorded in the footer,
// or nil (files of the original writer, recovered files).
func (f *File) UnitStats() []schema.UnitStat {
	if f.footer == nil {
		return nil
	}
	return f.footer.UnitStats
}

// Decodes returns how many blocks have been decoded for queries (Decode,
// CountDecode).
func (f *File) Decodes() int64 { return f.decodes.Load() }

// CountDecode counts a block decoded for a query by other means than Decode.
func (f *File) CountDecode() { f.decodes.Add(1) }

// Err returns the first error a read of the file met (a block that does not
// decode, a fault), or nil. Since it comes from the file's bytes, every
// later read meets it again.
func (f *File) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// SetErr records err as the file's error unless it has one.
func (f *File) SetErr(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

// Close unmaps the file, once every reader of the mapping that holds
// RLock is done. Slices obtained from the File are invalid afterwards.
func (f *File) Close() error {
	f.mapMu.Lock()
	defer f.mapMu.Unlock()
	if f.unmapped {
		return nil
	}
	f.unmapped = true
	f.data = nil
	return f.m.close()
}

// AdviseSequential hints that bytes [off, off+n) of the file will be read
// front to back.
func (f *File) AdviseSequential(off, n int64) {
	f.m.advise(int(off), int(n), adviseSequential)
}

// Created returns the footer's creation timestamp (Unix seconds) and
// whether the file has a footer (false for a recovered file).
func (f *File) Created() (ts uint64, ok bool) {
	if f.footer == nil {
		return 0, false
	}
	return f.footer.CreatedTimestamp, true
}
