package tracefile

import (
	"errors"

	"github.com/chronon-sim/chronon-go/schema"
)

// Options are what the reader was asked for that opening uses.
type Options struct {
	Decoders  int   // goroutines that verify blocks at once (recovery)
	MemBudget int64 // bytes one iteration may hold decoded; bounds parallel verification
	Repair    bool  // a rejected footer is replaced by the block walk
}

// Open maps the file at path and validates its header, schema and footer
// before trusting any offset or size in them. A file without a usable footer
// is recovered by walking its blocks (see Status). Errors name the file, the
// section and the byte offset (*schema.FormatError); a file that is not a
// trace at all gives an error matching ErrNotATrace.
func Open(path string, o Options) (*File, error) {
	m, err := openMapping(path)
	if err != nil {
		return nil, err
	}
	f, err := newFile(path, m.data, o)
	if err != nil {
		m.close()
		return nil, err
	}
	f.m = m
	return f, nil
}

// OpenBytes reads a trace held in memory; name is used in error messages.
// data must not change while the File is in use.
func OpenBytes(name string, data []byte, o Options) (*File, error) {
	return newFile(name, data, o)
}

func newFile(path string, data []byte, o Options) (_ *File, err error) {
	f := &File{path: path, data: data, opts: o, schemaOff: -1, sch: &schema.Schema{}}
	defer f.Guard(&err, PanicOnFault()) // the file may shrink while it is checked
	cut, err := f.parseHeader()
	if err != nil {
		return nil, err
	}
	h := f.hdr
	hasFooter := h.Flags&schema.FlagHasIndex != 0 && h.FooterSize != 0 && !cut.footer
	if err := f.loadSchema(cut, hasFooter); err != nil {
		return nil, err
	}
	var keys blockKeys
	if hasFooter {
		err := f.loadFooter(&keys)
		switch {
		case err == nil:
			f.status = Status{Blocks: f.blocks.len(), Events: keys.events}
		case !o.Repair:
			return nil, err
		default:
			if err := f.repairFooter(err); err != nil {
				return nil, err
			}
			keys = listKeys(f.blocks.list)
		}
	} else {
		why := "no footer: the index flag is clear"
		switch {
		case cut.footer:
			why = "the footer lies past the end of the file: the file was cut short"
		case h.Flags&schema.FlagHasIndex != 0:
			why = "no footer: the writer did not close the file"
		}
		if err := f.recoverBlocks(why, cut.firstBlock); err != nil {
			return nil, err
		}
		f.status.CutShort = cut.footer
		keys = listKeys(f.blocks.list)
	}
	f.buildIndex(&keys)
	return f, nil
}

// cutSections records which sections the header places past the end of the
// file: a file cut short (a crash, a copy taken while writing) rather than
// a corrupt one.
type cutSections struct {
	schema, firstBlock, footer bool
	// schemaOff, schemaSize: where the header put the schema that runs
	// past the end (cut.schema), for the error when no schema is found.
	schemaOff, schemaSize uint64
}

func (f *File) parseHeader() (cutSections, error) {
	var cut cutSections
	size := uint64(len(f.data))
	h, err := schema.ParseHeader(f.data, int64(size))
	if err == nil {
		f.hdr = h
		return cut, nil
	}
	raw, ok := schema.DecodeHeader(f.data)
	if !ok || raw.Magic != schema.Magic {
		return cut, notATrace(err, f.path)
	}
	if raw.VersionMajor != schema.VersionMajor {
		return cut, withFile(err, f.path)
	}
	if cerr := schema.CheckHeaderCRC(f.data); cerr != nil {
		return cut, withFile(cerr, f.path) // no offset of a damaged header is a sign of a cut
	}
	// An offset inside the header is corruption; one past the end of the
	// file means the file was cut short, and recovery can use what remains.
	pastEnd := func(off, n uint64) bool { return off >= schema.HeaderSize && (off > size || n > size-off) }
	if raw.SchemaSize != 0 && pastEnd(raw.SchemaOffset, raw.SchemaSize) {
		cut.schema = true
		cut.schemaOff, cut.schemaSize = raw.SchemaOffset, raw.SchemaSize
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
		return cut, withFile(err, f.path) // something else is wrong: report the original finding
	}
	// A cut file loses its end: the footer (written last) goes first. A
	// header whose footer lies inside the file but whose schema or first
	// block does not is corrupt, not cut.
	if (cut.schema || cut.firstBlock) && raw.Flags&schema.FlagHasIndex != 0 && raw.FooterSize != 0 {
		return cut, withFile(err, f.path)
	}
	f.hdr = raw
	return cut, nil
}

// loadSchema decodes the schema the header points at. A file whose header
// lost its schema offsets (written by a process killed before it rewrote
// the header) has it right after the header, where the original writer puts
// it; it is looked for there only when there is no footer to trust instead.
func (f *File) loadSchema(cut cutSections, hasFooter bool) error {
	h := f.hdr
	if h.Flags&schema.FlagHasSchema == 0 {
		return nil
	}
	if h.SchemaSize != 0 {
		off, n := int64(h.SchemaOffset), int64(h.SchemaSize)
		if err := schema.CheckSchemaCRC(h, f.data[off:off+n], off); err != nil {
			return withFile(err, f.path)
		}
		s, _, err := schema.DecodeSchema(f.data[off:off+n], off)
		if err != nil {
			return withFile(err, f.path)
		}
		f.sch, f.schemaOff, f.schemaSize = s, off, n
		return nil
	}
	if hasFooter && !cut.schema {
		return nil // the original reader reads no schema when schema_size is 0
	}
	err := f.locateSchema()
	if err != nil && cut.schema {
		// The header says how long the schema is and the file ends
		// inside it: say so, as a cut header is said, whatever the
		// partial FlatBuffer made the locating find.
		have := uint64(0)
		if size := uint64(len(f.data)); size > cut.schemaOff {
			have = size - cut.schemaOff
		}
		return formatErr(f.path, "schema", int64(cut.schemaOff), "truncated: %d bytes, need %d (the file was cut short inside the schema)", have, cut.schemaSize)
	}
	return err
}

func (f *File) locateSchema() error {
	const at = schema.HeaderSize
	if len(f.data) < at+8 {
		return formatErr(f.path, "schema", at, "truncated: %d bytes, need at least 8 (the file ends inside the schema)", len(f.data)-at)
	}
	if id := string(f.data[at+4 : at+8]); id != schema.SchemaIdentifier {
		return formatErr(f.path, "schema", at+4, "the header has no schema offsets and no schema FlatBuffer follows the header (identifier %q, want %q)", id, schema.SchemaIdentifier)
	}
	s, extent, err := schema.DecodeSchema(f.data[at:], at)
	if err != nil {
		var fe *schema.FormatError
		if errors.As(err, &fe) {
			fe.Reason = "locating the schema after the header: " + fe.Reason
		}
		return withFile(err, f.path)
	}
	f.sch, f.schemaOff, f.schemaSize, f.schemaLocated = s, at, int64(extent), true
	return nil
}

// loadFooter verifies the footer and checks every block entry against the
// file before any offset in it is used, collecting the seek index's keys on
// the way. The entries stay in the mapping (blockTable reads them in place).
func (f *File) loadFooter(keys *blockKeys) error {
	h := f.hdr
	off := int64(h.FooterOffset)
	keys.unitSets = true
	// A finding about an entry is reported only once the whole footer has
	// verified: a structural error anywhere in it comes first, as it did
	// when the footer was decoded before its entries were checked.
	sec := f.data[off : off+int64(h.FooterSize)]
	// The checksum first: a damaged footer is reported as damaged, not as
	// whatever its decoding would make of the flipped bits.
	hasCRC, err := schema.CheckFooterCRC(sec, off)
	if err != nil {
		return withFile(err, f.path)
	}
	if !hasCRC && h.HasChecksums() {
		return formatErr(f.path, "footer", off, "the header says the file carries checksums (FLAG_CHECKSUMS), the footer has no crc32c field")
	}
	chk := newFooterCheck(h, len(f.data))
	chk.wantCRC = hasCRC
	x, err := schema.DecodeFooterIndex(sec, off, func(i, n int, e *schema.BlockIndex, hasUnits bool) error {
		chk.entry(i, e)
		if chk.bad != "" {
			return nil // keys are no longer needed
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
		return withFile(err, f.path)
	}
	if i, why := chk.finish(&x.Footer, x.Len(), h.FooterOffset); why != "" {
		if i < 0 {
			return formatErr(f.path, "footer", off, "%s", why)
		}
		return formatErr(f.path, "footer", x.EntryOffset(i), "blocks[%d]%s", i, why)
	}
	f.blocks = blockTable{fx: x}
	f.footer = &x.Footer
	return nil
}
