package schema

import "encoding/binary"

// FooterIndex is a verified footer whose block entries stay in its buffer.
//
// Footer.Blocks costs 64 bytes of heap per block plus its unit list: on a
// multi-gigabyte trace (150,000 blocks and more) that is more memory than
// the rest of a reader put together, and it grows with the file. A
// FooterIndex keeps no per-block memory at all: each accessor reads the
// entry's FlatBuffers table where it lies (a read-only mapping of the file,
// typically), at the cost of a vtable lookup per field.
//
// DecodeFooterIndex checks every entry exactly as DecodeFooter does, so the
// accessors re-read bytes already verified; b must not change while the
// index is used. Should it change anyway, the accessors stay bounds-checked
// and return zero values rather than panic.
type FooterIndex struct {
	// Footer holds the footer's other fields and UnitStats; Blocks is nil.
	Footer

	b     []byte
	base  int64 // absolute file offset of b[0]
	start int   // first element of the blocks vector
	n     int
}

// BlockVisitor sees entry i of n as DecodeFooterIndex verifies it: e with
// Units nil, and whether the entry records a unit list. e is reused for the
// next entry. An error ends decoding and is returned as is.
type BlockVisitor func(i, n int, e *BlockIndex, hasUnits bool) error

// DecodeFooterIndex verifies the footer section b (at absolute file offset
// base) like DecodeFooter and returns it without copying the block entries.
// visit (may be nil) sees each entry on the way, so a reader can check and
// summarize them without a second pass over the footer.
func DecodeFooterIndex(b []byte, base int64, visit BlockVisitor) (*FooterIndex, error) {
	f, start, n, err := decodeFooter(b, base, false, visit)
	if err != nil {
		return nil, err
	}
	return &FooterIndex{Footer: *f, b: b, base: base, start: start, n: n}, nil
}

// Len is the number of block entries.
func (x *FooterIndex) Len() int { return x.n }

// entry returns a decoder positioned on entry i's table.
func (x *FooterIndex) entry(i int) (fbuf, fbTable) {
	d := fbuf{b: x.b, section: "footer"}
	if i < 0 || i >= x.n {
		return d, fbTable{}
	}
	return d, d.elemTable(x.start, i, "blocks")
}

// EntryOffset returns the absolute file offset of entry i's table (where an
// error about the entry points), or of the footer when i is out of range.
func (x *FooterIndex) EntryOffset(i int) int64 {
	d, t := x.entry(i)
	if d.err != nil || t.vtSize == 0 {
		return x.base
	}
	return x.base + int64(t.pos)
}

// Block returns entry i, Units left nil (see BlockUnits). Index is what the
// writer recorded.
func (x *FooterIndex) Block(i int) BlockIndex {
	d := fbuf{b: x.b, section: "footer"}
	var bi BlockIndex
	if i >= 0 && i < x.n {
		decodeBlockEntry(&d, x.start, i, &bi, nil, false)
	}
	return bi
}

// BlockMinCycle returns entry i's min_cycle alone (a seek's hot accessor).
func (x *FooterIndex) BlockMinCycle(i int) uint64 {
	d, t := x.entry(i)
	return d.scalar64(t, slotBlockMin, "min_cycle")
}

// BlockMaxCycle returns entry i's max_cycle alone.
func (x *FooterIndex) BlockMaxCycle(i int) uint64 {
	d, t := x.entry(i)
	return d.scalar64(t, slotBlockMax, "max_cycle")
}

// BlockDataOffset returns entry i's data_offset alone.
func (x *FooterIndex) BlockDataOffset(i int) uint64 {
	d, t := x.entry(i)
	return d.scalar64(t, slotBlockOffset, "data_offset")
}

// BlockUncompressedSize returns entry i's uncompressed_size alone.
func (x *FooterIndex) BlockUncompressedSize(i int) uint32 {
	d, t := x.entry(i)
	return d.scalar32(t, slotBlockUSize, 0, "uncompressed_size")
}

// BlockUnits appends entry i's unit list to dst and reports whether the entry
// records one (the field appended to BlockHeader; absent in files of the
// original writer). A recorded empty list returns dst[:0] (never nil) and
// true.
func (x *FooterIndex) BlockUnits(i int, dst []uint16) ([]uint16, bool) {
	d, t := x.entry(i)
	dst = dst[:0]
	us, un := d.vec(t, slotBlockUnits, 2, "block units")
	if un == 0 {
		if d.field(t, slotBlockUnits, 4, "block units") == 0 {
			return nil, false
		}
		if dst == nil {
			dst = []uint16{}
		}
		return dst, true
	}
	for j := 0; j < un; j++ {
		dst = append(dst, binary.LittleEndian.Uint16(d.b[us+2*j:]))
	}
	return dst, true
}

// Blocks decodes every entry into a new slice, as DecodeFooter would (one
// backing array for the unit lists).
func (x *FooterIndex) Blocks() []BlockIndex {
	if x.n == 0 {
		return nil
	}
	out := make([]BlockIndex, x.n)
	var units []uint16
	d := fbuf{b: x.b, section: "footer"}
	for i := range out {
		units, _ = decodeBlockEntry(&d, x.start, i, &out[i], units, true)
	}
	return out
}
