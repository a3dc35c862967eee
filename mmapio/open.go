package mmapio

import (
	"errors"

	"github.com/chronon-sim/chronon-go/schema"
)

// Open maps the file at path and validates its header, schema and footer
// before trusting any offset or size in them. A file without a usable footer
// is recovered by walking its blocks (see Status). Errors name the file, the
// section and the byte offset (*schema.FormatError); a file that is not a
// trace at all gives an error matching ErrNotATrace.
func Open(path string, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	m, err := openMapping(path)
	if err != nil {
		return nil, err
	}
	r, err := newReader(path, m.data, o)
	if err != nil {
		m.close()
		return nil, err
	}
	r.m = m
	return r, nil
}

// OpenBytes reads a trace held in memory; name is used in error messages.
// data must not change while the Reader is in use.
func OpenBytes(name string, data []byte, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newReader(name, data, o)
}

// Probe opens path only to classify it.
func Probe(path string) (Status, error) {
	r, err := Open(path)
	if err != nil {
		if errors.Is(err, ErrNotATrace) {
			return Status{State: StateNotATrace}, err
		}
		return Status{}, err
	}
	defer r.Close()
	return r.Status(), nil
}

func newReader(path string, data []byte, o options) (*Reader, error) {
	r := &Reader{path: path, data: data, opts: o, schemaOff: -1, sch: &schema.Schema{}}
	cut, err := r.parseHeader()
	if err != nil {
		return nil, err
	}
	h := r.hdr
	hasFooter := h.Flags&schema.FlagHasIndex != 0 && h.FooterSize != 0 && !cut.footer
	if err := r.loadSchema(cut.schema, hasFooter); err != nil {
		return nil, err
	}
	r.buildTables()
	var keys blockKeys
	if hasFooter {
		if err := r.loadFooter(&keys); err != nil {
			return nil, err
		}
		r.status = Status{State: StateComplete, Blocks: r.blocks.len(), Events: keys.events}
	} else {
		why := "no footer: the index flag is clear"
		switch {
		case cut.footer:
			why = "the footer lies past the end of the file: the file was cut short"
		case h.Flags&schema.FlagHasIndex != 0:
			why = "no footer: the writer did not close the file"
		}
		if err := r.recoverBlocks(why, cut.firstBlock); err != nil {
			return nil, err
		}
		keys = listKeys(r.blocks.list)
	}
	r.buildIndex(&keys)
	return r, nil
}

// cutSections records which sections the header places past the end of the
// file: a file cut short (a crash, a copy taken while writing) rather than
// a corrupt one.
type cutSections struct {
	schema, firstBlock, footer bool
}

func (r *Reader) parseHeader() (cutSections, error) {
	var cut cutSections
	size := uint64(len(r.data))
	h, err := schema.ParseHeader(r.data, int64(size))
	if err == nil {
		r.hdr = h
		return cut, nil
	}
	raw, ok := schema.DecodeHeader(r.data)
	if !ok || raw.Magic != schema.Magic {
		return cut, notATrace(err, r.path)
	}
	if raw.VersionMajor != schema.VersionMajor {
		return cut, withFile(err, r.path)
	}
	// An offset inside the header is corruption; one past the end of the
	// file means the file was cut short, and recovery can use what remains.
	pastEnd := func(off, n uint64) bool { return off >= schema.HeaderSize && (off > size || n > size-off) }
	if raw.SchemaSize != 0 && pastEnd(raw.SchemaOffset, raw.SchemaSize) {
		cut.schema = true
		raw.SchemaOffset, raw.SchemaSize = 0, 0
	}
	if raw.FirstBlockOffset > size {
		cut.firstBlock = true
	}
	if raw.FooterSize != 0 && pastEnd(raw.FooterOffset, raw.FooterSize) {
		cut.footer = true
		raw.FooterOffset, raw.FooterSize = 0, 0
	}
	check := raw
	if cut.firstBlock {
		check.FirstBlockOffset = 0
	}
	if _, err2 := schema.ParseHeader(schema.AppendHeader(nil, check), int64(size)); err2 != nil {
		return cut, withFile(err, r.path) // something else is wrong: report the original finding
	}
	// A cut file loses its end: the footer (written last) goes first. A
	// header whose footer lies inside the file but whose schema or first
	// block does not is corrupt, not cut.
	if (cut.schema || cut.firstBlock) && raw.Flags&schema.FlagHasIndex != 0 && raw.FooterSize != 0 {
		return cut, withFile(err, r.path)
	}
	r.hdr = raw
	return cut, nil
}

// loadSchema decodes the schema the header points at. A file whose header
// lost its schema offsets (written by a process killed before it rewrote
// the header) has it right after the header, where the original writer puts
// it; it is looked for there only when there is no footer to trust instead.
func (r *Reader) loadSchema(cut, hasFooter bool) error {
	h := r.hdr
	if h.Flags&schema.FlagHasSchema == 0 {
		return nil
	}
	if h.SchemaSize != 0 {
		off, n := int64(h.SchemaOffset), int64(h.SchemaSize)
		s, _, err := schema.DecodeSchema(r.data[off:off+n], off)
		if err != nil {
			return withFile(err, r.path)
		}
		r.sch, r.schemaOff, r.schemaSize = s, off, n
		return nil
	}
	if hasFooter && !cut {
		return nil // the original reader reads no schema when schema_size is 0
	}
	return r.locateSchema()
}

func (r *Reader) locateSchema() error {
	const at = schema.HeaderSize
	if len(r.data) < at+8 {
		return formatErr(r.path, "schema", at, "the file ends inside the schema (%d bytes)", len(r.data))
	}
	if id := string(r.data[at+4 : at+8]); id != schema.SchemaIdentifier {
		return formatErr(r.path, "schema", at+4, "the header has no schema offsets and no schema FlatBuffer follows the header (identifier %q, want %q)", id, schema.SchemaIdentifier)
	}
	s, extent, err := schema.DecodeSchema(r.data[at:], at)
	if err != nil {
		var fe *schema.FormatError
		if errors.As(err, &fe) {
			fe.Reason = "locating the schema after the header: " + fe.Reason
		}
		return withFile(err, r.path)
	}
	r.sch, r.schemaOff, r.schemaSize, r.schemaLocated = s, at, int64(extent), true
	return nil
}

// loadFooter verifies the footer and checks every block entry against the
// file before any offset in it is used, collecting the seek index's keys on
// the way. The entries stay in the mapping (blockTable reads them in place).
func (r *Reader) loadFooter(keys *blockKeys) error {
	h := r.hdr
	off := int64(h.FooterOffset)
	size := uint64(len(r.data))
	keys.unitSets = true
	// An implausible entry is reported only once the whole footer has
	// verified: a structural error anywhere in it comes first, as it did
	// when the footer was decoded before its entries were checked.
	var bad error
	x, err := schema.DecodeFooterIndex(r.data[off:off+int64(h.FooterSize)], off, func(i, n int, e *schema.BlockIndex, hasUnits bool) error {
		if bad != nil {
			return nil
		}
		if why := plausible(e.Inline()); why != "" {
			bad = formatErr(r.path, "footer", off, "blocks[%d] (block at byte %d): %s", i, e.DataOffset, why)
			return nil
		}
		if e.DataOffset < schema.HeaderSize || e.DataOffset > size || size-e.DataOffset < schema.BlockHeaderSize+uint64(e.CompressedSize) {
			bad = formatErr(r.path, "footer", off, "blocks[%d]: block at byte %d with %d data bytes lies outside the %d-byte file", i, e.DataOffset, e.CompressedSize, size)
			return nil
		}
		if i == 0 {
			// n is bounded by the footer's size (4 bytes per entry), and
			// these keys live only until the index is built.
			keys.alloc(n)
		}
		keys.add(i, e, hasUnits)
		return nil
	})
	if err != nil {
		return withFile(err, r.path)
	}
	if bad != nil {
		return bad
	}
	r.blocks = blockTable{fx: x}
	r.footer = &x.Footer
	return nil
}
