package schema

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// fbuf is a bounds-checked view of one FlatBuffer with a sticky error, in the
// spirit of Prometheus' encoding.Decbuf: every accessor checks before it
// reads, the first failure is kept, and every later call returns zero values.
// So a decoder can be written as straight-line code and check d.err once.
//
// FlatBuffers offsets are followed only after the bytes they point at are
// known to lie inside the buffer, and vector lengths are checked against the
// bytes that remain, so no allocation is ever sized by an unchecked field.
type fbuf struct {
	b       []byte
	base    int64  // absolute file offset of b[0], for error messages
	section string // "schema", "footer"
	err     *FormatError
	extent  int // furthest byte covered by any object read so far
}

type fbTable struct {
	pos, vt, vtSize, size int
}

func (d *fbuf) fail(at int, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{Section: d.section, Offset: d.base + int64(at), Reason: fmt.Sprintf(format, args...)}
	}
}

func (d *fbuf) cover(end int) {
	if end > d.extent {
		d.extent = end
	}
}

// inside reports whether [at, at+n) lies in the buffer.
func (d *fbuf) inside(at, n int) bool {
	return at >= 0 && n >= 0 && at <= len(d.b) && n <= len(d.b)-at
}

// span checks that [at, at+n) lies in the buffer. ref is the offset of the
// field whose value led to at (the error is reported there: it is where the
// bad byte is, and always inside the file).
func (d *fbuf) span(ref, at, n int, what string) bool {
	if d.err != nil {
		return false
	}
	if !d.inside(at, n) {
		d.fail(ref, "%s: %d bytes at section offset %d run past the %d-byte section", what, n, at, len(d.b))
		return false
	}
	return true
}

func (d *fbuf) u16(at int, what string) int {
	if !d.span(at, at, 2, what) {
		return 0
	}
	return int(binary.LittleEndian.Uint16(d.b[at:]))
}

func (d *fbuf) u32(at int, what string) uint32 {
	if !d.span(at, at, 4, what) {
		return 0
	}
	return binary.LittleEndian.Uint32(d.b[at:])
}

// root returns the root table, whose offset is the buffer's first word.
func (d *fbuf) root(what string) fbTable {
	if len(d.b) < 8 {
		d.fail(0, "%s: %d bytes is too short for a FlatBuffer", what, len(d.b))
		return fbTable{}
	}
	d.cover(4)
	return d.table(0, int(d.u32(0, what)), what)
}

// table validates the table at pos (reached through the offset at ref):
// its vtable and its inline bytes. Names for errors are built only when
// there is one: a footer has a table per block.
func (d *fbuf) table(ref, pos int, what string) fbTable {
	if d.err != nil {
		return fbTable{}
	}
	if !d.inside(pos, 4) {
		d.fail(ref, "%s: table at section offset %d is outside the %d-byte section", what, pos, len(d.b))
		return fbTable{}
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(d.b[pos:])))
	if !d.inside(vt, 4) {
		d.fail(pos, "%s: vtable at section offset %d is outside the %d-byte section", what, vt, len(d.b))
		return fbTable{}
	}
	t := fbTable{pos: pos, vt: vt, vtSize: d.u16(vt, what), size: d.u16(vt+2, what)}
	switch {
	case t.vtSize < 4 || t.vtSize%2 != 0:
		d.fail(vt, "%s: vtable size %d is invalid", what, t.vtSize)
	case t.size < 4:
		d.fail(vt+2, "%s: table size %d is invalid", what, t.size)
	case !d.inside(vt, t.vtSize):
		d.fail(vt, "%s: %d-byte vtable runs past the %d-byte section", what, t.vtSize, len(d.b))
	case !d.inside(pos, t.size):
		d.fail(vt+2, "%s: %d-byte table runs past the %d-byte section", what, t.size, len(d.b))
	}
	if d.err != nil {
		return fbTable{}
	}
	d.cover(vt + t.vtSize)
	d.cover(pos + t.size)
	return t
}

// field returns the position of slot's value of the given inline size, or 0
// when the table does not have the field.
func (d *fbuf) field(t fbTable, slot, size int, what string) int {
	if d.err != nil || t.vtSize == 0 {
		return 0
	}
	o := 4 + 2*slot
	if o+2 > t.vtSize {
		return 0
	}
	fo := int(binary.LittleEndian.Uint16(d.b[t.vt+o:]))
	if fo == 0 {
		return 0
	}
	if fo < 4 || fo+size > t.size {
		d.fail(t.vt+o, "%s: field at table offset %d (size %d) is outside the %d-byte table", what, fo, size, t.size)
		return 0
	}
	return t.pos + fo
}

func (d *fbuf) scalar8(t fbTable, slot int, def uint8, what string) uint8 {
	if p := d.field(t, slot, 1, what); p != 0 {
		return d.b[p]
	}
	return def
}

func (d *fbuf) scalar16(t fbTable, slot int, what string) uint16 {
	if p := d.field(t, slot, 2, what); p != 0 {
		return binary.LittleEndian.Uint16(d.b[p:])
	}
	return 0
}

func (d *fbuf) scalar32(t fbTable, slot int, def uint32, what string) uint32 {
	if p := d.field(t, slot, 4, what); p != 0 {
		return binary.LittleEndian.Uint32(d.b[p:])
	}
	return def
}

func (d *fbuf) scalar64(t fbTable, slot int, what string) uint64 {
	if p := d.field(t, slot, 8, what); p != 0 {
		return binary.LittleEndian.Uint64(d.b[p:])
	}
	return 0
}

// target follows the offset field in slot; -1 when absent or invalid.
func (d *fbuf) target(t fbTable, slot int, what string) int {
	p := d.field(t, slot, 4, what)
	if p == 0 {
		return -1
	}
	return d.follow(p, what)
}

// follow reads the uoffset at p and returns where it points, checked.
func (d *fbuf) follow(p int, what string) int {
	off := d.u32(p, what)
	if d.err != nil {
		return -1
	}
	dst := p + int(off)
	if off > uint32(len(d.b)) || dst+4 > len(d.b) {
		d.fail(p, "%s: offset %d points past the %d-byte section", what, off, len(d.b))
		return -1
	}
	return dst
}

// str decodes the string whose header is at p.
func (d *fbuf) str(p int, what string) string {
	n := int(d.u32(p, what))
	if !d.span(p, p+4, n, what) {
		return ""
	}
	end := p + 4 + n
	if end < len(d.b) {
		end++ // the NUL that FlatBuffers writes after every string
	}
	d.cover(end)
	return string(d.b[p+4 : p+4+n])
}

func (d *fbuf) strField(t fbTable, slot int, what string) string {
	if p := d.target(t, slot, what); p >= 0 {
		return d.str(p, what)
	}
	return ""
}

// vec validates the vector in slot and returns where its elements start and
// how many there are (0, 0 when absent).
func (d *fbuf) vec(t fbTable, slot, elem int, what string) (start, n int) {
	p := d.target(t, slot, what)
	if p < 0 {
		return 0, 0
	}
	n = int(d.u32(p, what))
	if d.err != nil || n > (len(d.b)-p-4)/elem {
		d.fail(p, "%s: vector of %d elements of %d bytes runs past the %d-byte section", what, n, elem, len(d.b))
		return 0, 0
	}
	d.cover(p + 4 + n*elem)
	return p + 4, n
}

// elemTable returns the i-th table of a vector of tables starting at start.
func (d *fbuf) elemTable(start, i int, what string) fbTable {
	p := start + 4*i
	dst := d.follow(p, what)
	if dst < 0 {
		return fbTable{}
	}
	return d.table(p, dst, what)
}

// elemName formats "what[i]" only when an error needs it.
func elemName(what string, i int) string { return what + "[" + strconv.Itoa(i) + "]" }
