package tracefile

import (
	"errors"
	"sync"

	"github.com/chronon-sim/chronon-go/schema"
)

// A block stored raw (compressed_size = uncompressed_size) has no zstd
// frame, so no content checksum, and its CRC32C lives in the footer: in a
// file without one (a killed run, or a footer rejected under WithRepair)
// nothing vouches for its bytes. What chronon-go's writer guarantees of
// every event it writes is checked instead, for files that carry checksums
// (ours): the five padding bytes are zero, every event of the block has the
// unit of the first (a block holds one unit), its format is in the schema
// (the writer writes the schema before any block that uses a format), its
// arg_count is the format's and its arguments are exactly the format's
// types (fixed sizes, strings NUL-terminated) filling args_size. A bit
// flipped in an argument's value, the category or the cycle's low bits
// passes these checks: docs/format.md says so.

// errRawDamage is the Kind of a raw block failing those checks: damage (a
// flipped bit), which the footer-less walk leaves out as it leaves out a
// block failing its checksum.
var errRawDamage = errors.New("raw block damaged")

// rawFormats maps format ids to their argument types (the first schema
// entry with an id wins, as for reading), built once.
type rawFormats struct {
	once  sync.Once
	types map[uint32][]schema.ArgType
}

func (f *File) rawFormatTypes() map[uint32][]schema.ArgType {
	f.rawFmts.once.Do(func() {
		m := make(map[uint32][]schema.ArgType)
		if f.sch != nil {
			for _, fm := range f.sch.Formats {
				if _, ok := m[fm.ID]; !ok {
					m[fm.ID] = fm.ArgTypes
				}
			}
		}
		f.rawFmts.types = m
	})
	return f.rawFmts.types
}

// rawUnchecked reports whether nothing but checkRawEvents vouches for
// block b's bytes: it is raw, has no CRC32C and the file is ours.
func (f *File) rawUnchecked(b *Block) bool {
	return IsRaw(b) && !b.HasCRC && f.hdr.HasChecksums()
}

// rawDamage marks err, ScanEvents' error for block b, as damage when b is
// such a block: its bytes are all in the file (a cut leaves a block whose
// data runs past the end), so events that do not walk are a flipped bit.
func (f *File) rawDamage(b *Block, err error) error {
	var fe *schema.FormatError
	if f.rawUnchecked(b) && errors.As(err, &fe) && fe.Kind == nil {
		fe.Kind = errRawDamage
	}
	return err
}

// checkRawEvents checks the events of raw block b (data, already walked by
// ScanEvents) against what our writer writes, when nothing else can: the
// block is raw, has no CRC32C and the file is ours.
func (f *File) checkRawEvents(b *Block, data []byte) error {
	if !f.rawUnchecked(b) || len(data) < schema.EventHeaderSize {
		return nil
	}
	types := f.rawFormatTypes()
	unit := le16(data[18:])
	for p := 0; p < len(data); {
		e := data[p : p+schema.EventHeaderSize]
		argLen := int(le16(e))
		args := data[p+schema.EventHeaderSize : p+schema.EventHeaderSize+argLen]
		for i := 21; i < schema.EventHeaderSize; i++ {
			if e[i] != 0 {
				return f.rawErr(b, p, "padding byte %d of the event header is 0x%02x, not 0", i, e[i])
			}
		}
		if u := le16(e[18:]); u != unit {
			return f.rawErr(b, p, "event of unit %d in a block of unit %d", u, unit)
		}
		fid := le32(e[10:])
		ts, ok := types[fid]
		if !ok {
			return f.rawErr(b, p, "format id %d is not in the schema", fid)
		}
		if int(e[20]) != len(ts) {
			return f.rawErr(b, p, "arg_count %d, format %d has %d arguments", e[20], fid, len(ts))
		}
		if n := argsLen(ts, args); n != argLen {
			return f.rawErr(b, p, "args_size %d, format %d's arguments take %d bytes", argLen, fid, n)
		}
		p += schema.EventHeaderSize + argLen
	}
	return nil
}

// argsLen returns how many bytes arguments of types take at the start of
// args (strings up to and including their NUL), or -1 when they do not fit.
func argsLen(types []schema.ArgType, args []byte) int {
	off := 0
	for _, t := range types {
		if t == schema.ArgString {
			n := 0
			for off+n < len(args) && args[off+n] != 0 {
				n++
			}
			if off+n == len(args) {
				return -1
			}
			off += n + 1
			continue
		}
		if s := t.Size(); s == 0 || s > len(args)-off {
			return -1
		} else {
			off += s
		}
	}
	return off
}

func (f *File) rawErr(b *Block, p int, format string, args ...any) error {
	fe := formatErr(f.path, BlockSection(int(b.Index)), PayloadOff(b)+int64(p),
		"raw block without a checksum: event "+format, args...)
	fe.Kind = errRawDamage
	return fe
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
