package mmapio

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/schema"
)

// Reader reads one .ctrace file through a read-only mapping.
//
// Every slice the Reader returns (event arguments of raw blocks, the schema's
// strings are copies) points into the mapping and is valid until Close. A
// Reader may be used by several goroutines at once; Close must not race with
// the use of anything it returned.
type Reader struct {
	f    *tracefile.File
	opts options

	formats   []*Format          // in schema order
	fmtDense  []*Format          // by id when ids are small
	fmtSparse map[uint32]*Format // by id otherwise
	unitNames []string           // by unit id; "" = no name

	memPeak atomic.Int64 // most bytes an iteration reserved for decoded data (tests check the budget)

	linesRendered, bytesRendered atomic.Int64 // dump lines so far: their average sizes text buffers

	mu      sync.Mutex
	closed  bool
	running map[*segPipe]struct{}
}

// Path returns the file name the Reader was opened with.
func (r *Reader) Path() string { return r.f.Path() }

// Size returns the file size in bytes.
func (r *Reader) Size() int64 { return r.f.Size() }

// Header returns the 64-byte file header as stored (a recovered file's may
// hold zero offsets).
func (r *Reader) Header() schema.Header { return r.f.Header() }

// Schema returns the decoded schema; it is empty (never nil) for a file
// without one.
func (r *Reader) Schema() *schema.Schema { return r.f.Schema() }

// Footer returns the decoded footer, or nil for a recovered file. Its
// Blocks are decoded from the mapping on the first call (the reader itself
// reads them in place; see Blocks).
func (r *Reader) Footer() *schema.Footer { return r.f.Footer() }

// Status reports whether the file was complete or recovered.
func (r *Reader) Status() Status { return statusOf(r.f.Status()) }

// Blocks returns the blocks in file order. The slice is shared: do not
// modify it. For a file with a footer it is decoded from the mapping on the
// first call (64 bytes per block plus unit lists); iteration and queries do
// not need it, they read the footer in place.
// After Close it returns what was decoded before (nil if nothing was).
// If the file shrank under the mapping it returns nil and Err reports the
// *FaultError.
func (r *Reader) Blocks() []Block { return r.f.Blocks() }

// NumBlocks returns the number of blocks without decoding them.
func (r *Reader) NumBlocks() int { return r.f.NumBlocks() }

// HasUnitSets reports whether every block records the units it holds, so a
// unit query can skip blocks without decoding them.
func (r *Reader) HasUnitSets() bool { return r.f.HasUnitSets() }

// Formats returns the registered formats in schema order.
func (r *Reader) Formats() []*Format { return r.formats }

// Format returns the format an event with this id uses (the first schema
// entry with the id, as the original reader), or nil.
func (r *Reader) Format(id uint32) *Format {
	if r.fmtSparse != nil {
		return r.fmtSparse[id]
	}
	if uint64(id) < uint64(len(r.fmtDense)) {
		return r.fmtDense[id]
	}
	return nil
}

// Units returns the schema's units in schema order.
func (r *Reader) Units() []schema.Unit { return r.f.Schema().Units }

// UnitName returns the name events of unit id print with ("" for none: the
// last schema entry with the id wins, as in the original reader).
func (r *Reader) UnitName(id uint16) string {
	if int(id) < len(r.unitNames) {
		return r.unitNames[id]
	}
	return ""
}

// UnitsNamed returns the ids of the units whose name contains substr, as the
// original --unit filter matched; units without a name never match.
func (r *Reader) UnitsNamed(substr string) []uint16 {
	var ids []uint16
	for id, name := range r.unitNames {
		if name != "" && strings.Contains(name, substr) {
			ids = append(ids, uint16(id))
		}
	}
	return ids
}

// Categories returns the schema's categories.
func (r *Reader) Categories() []schema.Category { return r.f.Schema().Categories }

// Metadata returns the run metadata the writer recorded (none in files of
// the original writer).
func (r *Reader) Metadata() []schema.KeyValue { return r.f.Schema().Metadata }

// UnitStats returns the per-unit counts the writer recorded in the footer,
// or nil (files of the original writer, recovered files).
func (r *Reader) UnitStats() []schema.UnitStat { return r.f.UnitStats() }

// Err returns the first error an iteration over this Reader met (a block
// that does not decode), or nil. Iteration stops at such an error; since it
// comes from the file's bytes, every later iteration meets it again.
func (r *Reader) Err() error { return r.f.Err() }

func (r *Reader) setErr(err error) { r.f.SetErr(err) }

// Close stops running iterations, waits for their decoders, and unmaps the
// file. Slices obtained from the Reader are invalid afterwards.
func (r *Reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	running := make([]*segPipe, 0, len(r.running))
	for p := range r.running {
		running = append(running, p)
	}
	r.mu.Unlock()
	for _, p := range running {
		p.stop()
	}
	return r.f.Close()
}

// buildTables prepares the lookups every event uses: formats by id, unit
// names by id.
func (r *Reader) buildTables() {
	sch := r.f.Schema()
	r.formats = make([]*Format, len(sch.Formats))
	maxID := uint32(0)
	for i, f := range sch.Formats {
		r.formats[i] = newFormat(f, sch.Symbols)
		maxID = max(maxID, f.ID)
	}
	if maxID < 1<<16 {
		r.fmtDense = make([]*Format, maxID+1)
		for _, f := range r.formats {
			if r.fmtDense[f.ID] == nil { // the first entry with an id wins
				r.fmtDense[f.ID] = f
			}
		}
	} else {
		r.fmtSparse = make(map[uint32]*Format, len(r.formats))
		for _, f := range r.formats {
			if _, ok := r.fmtSparse[f.ID]; !ok {
				r.fmtSparse[f.ID] = f
			}
		}
	}
	maxUnit := -1
	for _, u := range sch.Units {
		maxUnit = max(maxUnit, int(u.ID))
	}
	r.unitNames = make([]string, maxUnit+1)
	for _, u := range sch.Units {
		r.unitNames[u.ID] = u.Name // a later entry with the same id overwrites
	}
}
