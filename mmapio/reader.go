package mmapio

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/schema"
)

// Reader reads one .ctrace file through a read-only mapping.
//
// Every slice the Reader returns (event arguments of raw blocks, the schema's
// strings are copies) points into the mapping and is valid until Close. A
// Reader may be used by several goroutines at once; Close must not race with
// the use of anything it returned.
type Reader struct {
	path string
	m    *mapping
	data []byte
	opts options

	hdr           schema.Header
	sch           *schema.Schema
	schemaOff     int64 // -1 when the file has no schema
	schemaSize    int64
	schemaLocated bool           // found after the header, not at the header's offsets
	footer        *schema.Footer // nil for a recovered file; Blocks filled by Footer()
	footerOnce    sync.Once
	blocks        blockTable
	status        Status
	unitSets      bool // every block records its units

	formats    []*Format          // in schema order
	fmtDense   []*Format          // by id when ids are small
	fmtSparse  map[uint32]*Format // by id otherwise
	unitNames  []string           // by unit id; "" = no name
	linePrefix [][]byte           // by unit id: "] name: " or "] "

	byMin   []int32  // block indices sorted by (MinCycle, Offset)
	prefMax []uint64 // prefMax[i] = max MaxCycle of byMin[:i+1]
	rank    []uint32 // rank of each block by file offset (the merge's tie order); nil: the index

	decodes atomic.Int64 // blocks decoded for queries (tests check seeks decode only what they need)
	memPeak atomic.Int64 // most bytes an iteration reserved for decoded data (tests check the budget)

	linesRendered, bytesRendered atomic.Int64 // dump lines so far: their average sizes text buffers

	// mapMu guards the mapping against Close: the footer's block index is
	// read in place, so everything outside the pipelines' workers (which
	// Close stops first) that reads it holds mapMu for reading and checks
	// unmapped; Close unmaps under the write lock.
	mapMu    sync.RWMutex
	unmapped bool

	mu      sync.Mutex
	closed  bool
	running map[*segPipe]struct{}
	err     error // first error any iteration met (see Err)
}

// Path returns the file name the Reader was opened with.
func (r *Reader) Path() string { return r.path }

// Size returns the file size in bytes.
func (r *Reader) Size() int64 { return int64(len(r.data)) }

// Header returns the 64-byte file header as stored (a recovered file's may
// hold zero offsets).
func (r *Reader) Header() schema.Header { return r.hdr }

// Schema returns the decoded schema; it is empty (never nil) for a file
// without one.
func (r *Reader) Schema() *schema.Schema { return r.sch }

// SchemaSection returns the offset and size of the schema FlatBuffer the
// reader decoded, or -1, 0 when there is none.
func (r *Reader) SchemaSection() (offset, size int64) { return r.schemaOff, r.schemaSize }

// Footer returns the decoded footer, or nil for a recovered file. Its
// Blocks are decoded from the mapping on the first call (the reader itself
// reads them in place; see Blocks).
func (r *Reader) Footer() *schema.Footer {
	if r.footer == nil {
		return nil
	}
	r.footerOnce.Do(func() { r.footer.Blocks = r.Blocks() })
	return r.footer
}

// rlockMap takes the mapping for reading; false (lock not held) when Close
// has unmapped it.
func (r *Reader) rlockMap() bool {
	r.mapMu.RLock()
	if r.unmapped {
		r.mapMu.RUnlock()
		return false
	}
	return true
}

// Status reports whether the file was complete or recovered.
func (r *Reader) Status() Status { return r.status }

// Blocks returns the blocks in file order. The slice is shared: do not
// modify it. For a file with a footer it is decoded from the mapping on the
// first call (64 bytes per block plus unit lists); iteration and queries do
// not need it, they read the footer in place.
// After Close it returns what was decoded before (nil if nothing was).
// If the file shrank under the mapping it returns nil and Err reports the
// *FaultError.
func (r *Reader) Blocks() (blocks []Block) {
	if !r.rlockMap() {
		return r.blocks.decoded()
	}
	defer r.mapMu.RUnlock()
	var err error
	defer r.guardFault(&err, panicOnFault()) // a fault: nil, and Err reports it
	return r.blocks.blocks()
}

// NumBlocks returns the number of blocks without decoding them.
func (r *Reader) NumBlocks() int { return r.blocks.len() }

// HasUnitSets reports whether every block records the units it holds, so a
// unit query can skip blocks without decoding them.
func (r *Reader) HasUnitSets() bool { return r.unitSets }

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
func (r *Reader) Units() []schema.Unit { return r.sch.Units }

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
func (r *Reader) Categories() []schema.Category { return r.sch.Categories }

// Metadata returns the run metadata the writer recorded (none in files of
// the original writer).
func (r *Reader) Metadata() []schema.KeyValue { return r.sch.Metadata }

// UnitStats returns the per-unit counts the writer recorded in the footer,
// or nil (files of the original writer, recovered files).
func (r *Reader) UnitStats() []schema.UnitStat {
	if r.footer == nil {
		return nil
	}
	return r.footer.UnitStats
}

// Err returns the first error an iteration over this Reader met (a block
// that does not decode), or nil. Iteration stops at such an error; since it
// comes from the file's bytes, every later iteration meets it again.
func (r *Reader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Reader) setErr(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

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
	r.mapMu.Lock()
	defer r.mapMu.Unlock()
	r.unmapped = true
	r.data = nil
	return r.m.close()
}

// buildTables prepares the lookups every event uses: formats by id, unit
// names and line prefixes by id.
func (r *Reader) buildTables() {
	r.formats = make([]*Format, len(r.sch.Formats))
	maxID := uint32(0)
	for i, f := range r.sch.Formats {
		r.formats[i] = newFormat(f)
		r.formats[i].symbols = r.sch.Symbols
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
	for _, u := range r.sch.Units {
		maxUnit = max(maxUnit, int(u.ID))
	}
	r.unitNames = make([]string, maxUnit+1)
	for _, u := range r.sch.Units {
		r.unitNames[u.ID] = u.Name // a later entry with the same id overwrites
	}
	r.linePrefix = make([][]byte, len(r.unitNames))
	for id, name := range r.unitNames {
		if name != "" {
			r.linePrefix[id] = []byte(" " + EscapeText(name) + ": ") // the name is the file's: escape.go
		}
	}
}

// prefix returns what follows "[%10d]" on a dump line of unit id.
func (r *Reader) prefix(id uint16) []byte {
	if int(id) < len(r.linePrefix) {
		if p := r.linePrefix[id]; p != nil {
			return p
		}
	}
	return spacePrefix
}

var spacePrefix = []byte(" ")

// rankOf is the rank of block i by file offset.
func (r *Reader) rankOf(i int32) uint32 {
	if r.rank == nil {
		return uint32(i)
	}
	return r.rank[i]
}

// buildIndex sorts the blocks for seeking: by (MinCycle, Offset) with a
// prefix maximum of MaxCycle, and ranks them by offset for the merge's ties
// (rank stays nil when the footer lists the blocks in file order, as every
// writer does: the rank is then the index). keys are the blocks' sort keys,
// collected while the footer was verified.
func (r *Reader) buildIndex(keys *blockKeys) {
	n := len(keys.offs)
	r.byMin = make([]int32, n)
	for i := range r.byMin {
		r.byMin[i] = int32(i)
	}
	offs, mins, maxs := keys.offs, keys.mins, keys.maxs
	offLess := func(a, b int32) int { return cmp.Compare(offs[a], offs[b]) }
	if !slices.IsSortedFunc(r.byMin, offLess) {
		slices.SortStableFunc(r.byMin, offLess)
		r.rank = make([]uint32, n)
		for rk, i := range r.byMin {
			r.rank[i] = uint32(rk)
		}
	}
	if keys.empty != nil {
		// Empty blocks hold no event and their cycle range means nothing:
		// no query plans them (Blocks still lists them).
		r.byMin = slices.DeleteFunc(r.byMin, func(i int32) bool { return keys.empty[i] })
		n = len(r.byMin)
	}
	minLess := func(a, b int32) int {
		if c := cmp.Compare(mins[a], mins[b]); c != 0 {
			return c
		}
		return cmp.Compare(r.rankOf(a), r.rankOf(b))
	}
	if !slices.IsSortedFunc(r.byMin, minLess) {
		slices.SortFunc(r.byMin, minLess)
	}
	r.prefMax = make([]uint64, n)
	var m uint64
	for i, b := range r.byMin {
		m = max(m, maxs[b])
		r.prefMax[i] = m
	}
	r.unitSets = n > 0 && keys.unitSets
}
