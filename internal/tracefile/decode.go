package tracefile

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/zdec"
	"github.com/chronon-sim/chronon-go/schema"
)

// Decoded is one decoded block: its bytes and a record of every event a
// query selects, in cycle order.
type Decoded struct {
	Block int32   // the block's index
	Data  []byte  // decoded bytes; aliases the mapping for a raw block
	Buf   *[]byte // pooled buffer Data lives in; nil for a raw block
	Recs  []Rec
	Err   error    // why the block did not decode (Recs are then not valid)
	units []uint16 // scratch for the block's unit list (read from the footer)
}

// Rec is an event's record decoded once, on a worker, while the block is
// hot in cache: the merge and the consumer then touch 32 bytes per event,
// with no pointers for the garbage collector to scan.
type Rec struct {
	Cycle  uint64
	Fid    uint32 // format id
	Cat    uint32 // low 32 bits of the category mask
	ArgOff uint32 // offset of the arguments in the block's Data
	ArgLen uint16
	Unit   uint16
	Argc   uint8
}

// RecSize is the size of a Rec.
const RecSize = int64(unsafe.Sizeof(Rec{}))

// Args returns the argument bytes of record rc of d.
func (d *Decoded) Args(rc *Rec) []byte {
	return d.Data[rc.ArgOff : rc.ArgOff+uint32(rc.ArgLen) : rc.ArgOff+uint32(rc.ArgLen)]
}

// decodeds recycles block records (their Recs arrays), up to 32 MiB.
var decodeds = bufpool.FreeList[Decoded]{Limit: 1024, Budget: 32 << 20,
	Cost: func(d *Decoded) int { return cap(d.Recs)*int(RecSize) + 2*cap(d.units) }}

// NewDecoded returns an empty Decoded (recycled: Release gives it back).
func NewDecoded() *Decoded { return decodeds.Get() }

// DropIdle forgets the Decodeds Release kept for reuse, and their records.
func DropIdle() { decodeds.Drop() }

// ReleaseData gives d's buffer back to the pool; d keeps its records.
func ReleaseData(d *Decoded) {
	if d.Buf != nil {
		bufpool.Put(d.Buf)
		d.Buf = nil
	}
	d.Data = nil
}

// Release gives d back, with its buffer; nil does nothing.
func Release(d *Decoded) {
	if d == nil {
		return
	}
	ReleaseData(d)
	*d = Decoded{Recs: d.Recs[:0], units: d.units[:0]}
	decodeds.Put(d)
}

// Selector says which events of a block a query wants.
type Selector struct {
	All        bool // no filter: every event is selected
	Start, End uint64
	Units      *bitset.BitSet // nil: every unit
}

// Has reports whether sel wants events of unit u.
func (s *Selector) Has(u uint16) bool { return s.Units == nil || s.Units.Test(uint(u)) }

// any reports whether sel wants events of any of ids.
func (s *Selector) any(ids []uint16) bool {
	if s.Units == nil {
		return true
	}
	for _, id := range ids {
		if s.Units.Test(uint(id)) {
			return true
		}
	}
	return false
}

// BlockBytes returns the uncompressed bytes of block b: the mapped bytes of a
// raw block (no copy), or a compressed block decoded into a pooled buffer
// (returned in buf; the caller puts it back with bufpool.Put). The inline
// header must agree with what the file says about the block (the footer
// entry).
func (f *File) BlockBytes(b *Block) (data []byte, buf *[]byte, err error) {
	return f.BlockBytesInto(b, nil)
}

// BlockBytesInto is BlockBytes decoding into own's buffer (then buf is
// own.P, which stays the caller's: not put in the pool) when own is not
// nil. A windowed iteration decodes every block into one buffer of its own.
func (f *File) BlockBytesInto(b *Block, own *zdec.Own) (data []byte, buf *[]byte, err error) {
	if f.data == nil {
		return nil, nil, ErrClosed
	}
	if err := f.checkBlock(b); err != nil {
		return nil, nil, err
	}
	src := f.data[PayloadOff(b):BlockEnd(b)]
	if IsRaw(b) {
		return src, nil, nil
	}
	data, buf, err = zdec.Decode(src, int(b.UncompressedSize), own)
	if err != nil {
		fe := formatErr(f.path, BlockSection(int(b.Index)), PayloadOff(b), "%v", err)
		switch {
		case errors.Is(err, schema.ErrChecksum):
			fe.Kind = schema.ErrChecksum
		case errors.Is(err, zdec.ErrDeclaredSize):
			fe.Kind = zdec.ErrDeclaredSize
		}
		return nil, nil, fe
	}
	return data, buf, nil
}

// checkBlock checks block b's bytes against what the file says of them,
// before anything reads them: their checksum, when the footer records one
// (a flipped bit anywhere in the inline header or the data, compressed or
// raw), and the inline header against the footer's entry. Every read of a
// block's bytes comes through here (BlockBytesInto, AppendBlock, Verify).
func (f *File) checkBlock(b *Block) error {
	if b.HasCRC {
		if got := schema.BlockCRC(f.data[HeaderOff(b):BlockEnd(b)]); got != b.CRC {
			return checksumErr(f.path, BlockSection(int(b.Index)), HeaderOff(b),
				"the block's %d bytes (inline header and data) have CRC32C %08x, the footer says %08x",
				BlockEnd(b)-HeaderOff(b), got, b.CRC)
		}
	}
	ih, _ := schema.DecodeBlockHeader(f.data[HeaderOff(b):])
	if ih != b.Inline() {
		return formatErr(f.path, BlockSection(int(b.Index)), HeaderOff(b),
			"inline header {events %d, cycles %d-%d, sizes %d/%d} disagrees with the footer {events %d, cycles %d-%d, sizes %d/%d}",
			ih.EventCount, ih.MinCycle, ih.MaxCycle, ih.UncompressedSize, ih.CompressedSize,
			b.EventCount, b.MinCycle, b.MaxCycle, b.UncompressedSize, b.CompressedSize)
	}
	return nil
}

// wholeBlock reports whether the query wants every event of b: its cycle
// range lies in the query's and its recorded units (b.Units; nil when it
// records none) are all wanted (a unit query on a file written one unit per
// block).
func (s *Selector) wholeBlock(b *Block) bool {
	if s.All {
		return true
	}
	if b.MinCycle < s.Start || b.MaxCycle > s.End || b.Units == nil || len(b.Units) == 0 && s.Units != nil {
		return false
	}
	for _, u := range b.Units {
		if !s.Has(u) {
			return false
		}
	}
	return true
}

// ScanEvents walks every event of block b (data are its uncompressed bytes),
// checks that they fill the block exactly, that there are as many as the
// header says and that their cycles lie in its range, and records the
// selected ones in bd.Recs. A block whose events are not in cycle order has
// its records sorted (stably) so the merge still yields cycle order. sel nil
// selects nothing (verification only).
func (f *File) ScanEvents(b *Block, data []byte, sel *Selector, bd *Decoded) error {
	le := binary.LittleEndian
	n := len(data)
	lo, hi := b.MinCycle, b.MaxCycle
	var count uint32
	var prev uint64
	sorted := true
	recs := bd.Recs[:0]
	uc := NewUnitCheck(b.Units)
	if sel != nil && sel.wholeBlock(b) {
		recs = slices.Grow(recs, int(b.EventCount)) // validated: at most usize/26
		// Every event is selected: one tight loop writing records in place.
		recs = recs[:cap(recs)]
		k := 0
		for p := 0; p < n; {
			if n-p < schema.EventHeaderSize {
				return f.EventErr(b, p, "truncated event: %d bytes left, an event needs at least %d", n-p, schema.EventHeaderSize)
			}
			e := data[p : p+schema.EventHeaderSize : p+schema.EventHeaderSize]
			argLen := le.Uint16(e)
			end := p + schema.EventHeaderSize + int(argLen)
			if end > n {
				return f.EventErr(b, p, "event arguments run %d bytes past the end of the block", end-n)
			}
			c := le.Uint64(e[2:])
			if c < lo || c > hi {
				return f.EventErr(b, p, "event cycle %d lies outside the block's range %d-%d", c, lo, hi)
			}
			if c < prev {
				sorted = false
			}
			prev = c
			if u := le.Uint16(e[18:]); !uc.OK(u) {
				return f.UnitErr(b, p, u)
			}
			if k == len(recs) {
				recs = append(recs, Rec{})
				recs = recs[:cap(recs)]
			}
			rc := &recs[k]
			rc.Cycle, rc.Fid, rc.Cat = c, le.Uint32(e[10:]), le.Uint32(e[14:])
			rc.ArgOff, rc.ArgLen, rc.Unit, rc.Argc = uint32(p+schema.EventHeaderSize), argLen, le.Uint16(e[18:]), e[20]
			k++
			p = end
		}
		recs = recs[:k]
		count = uint32(k)
	} else {
		for p := 0; p < n; {
			if n-p < schema.EventHeaderSize {
				return f.EventErr(b, p, "truncated event: %d bytes left, an event needs at least %d", n-p, schema.EventHeaderSize)
			}
			e := data[p : p+schema.EventHeaderSize]
			argLen := le.Uint16(e)
			end := p + schema.EventHeaderSize + int(argLen)
			if end > n {
				return f.EventErr(b, p, "event arguments run %d bytes past the end of the block", end-n)
			}
			c := le.Uint64(e[2:])
			if c < lo || c > hi {
				return f.EventErr(b, p, "event cycle %d lies outside the block's range %d-%d", c, lo, hi)
			}
			if c < prev {
				sorted = false
			}
			prev = c
			count++
			unit := le.Uint16(e[18:])
			if !uc.OK(unit) {
				return f.UnitErr(b, p, unit)
			}
			if sel != nil {
				if c >= sel.Start && c <= sel.End && sel.Has(unit) {
					recs = append(recs, Rec{})
					rc := &recs[len(recs)-1]
					rc.Cycle, rc.Fid, rc.Cat = c, le.Uint32(e[10:]), le.Uint32(e[14:])
					rc.ArgOff, rc.ArgLen, rc.Unit, rc.Argc = uint32(p+schema.EventHeaderSize), argLen, unit, e[20]
				}
			}
			p = end
		}
	}
	if count != b.EventCount {
		return formatErr(f.path, BlockSection(int(b.Index)), HeaderOff(b), "block holds %d events, its header says %d", count, b.EventCount)
	}
	if !sorted && len(recs) > 1 {
		slices.SortStableFunc(recs, func(a, b Rec) int { return cmp.Compare(a.Cycle, b.Cycle) })
	}
	bd.Recs = recs
	return nil
}

// UnitErr is the error of an event at byte p of block b's data whose unit u
// the footer does not list for the block.
func (f *File) UnitErr(b *Block, p int, u uint16) error {
	return f.EventErr(b, p, "event of unit %d, but the footer lists the block's units as %v", u, b.Units)
}

// EventErr is the error of the event at byte p of block b's (uncompressed)
// data, naming the file, the block and the byte.
func (f *File) EventErr(b *Block, p int, format string, args ...any) error {
	if IsRaw(b) {
		return formatErr(f.path, BlockSection(int(b.Index)), PayloadOff(b)+int64(p), format, args...)
	}
	return formatErr(f.path, BlockSection(int(b.Index)), PayloadOff(b), "at byte %d of the decompressed data: "+format, append([]any{p}, args...)...)
}

// BlockWithUnits returns entry bi with its unit list, read into bd's
// scratch (ScanEvents checks each event's unit against it).
func (f *File) BlockWithUnits(bi int32, bd *Decoded) Block {
	b := f.blocks.at(bi)
	b.Units, _ = f.blocks.units(bi, bd.units)
	if f.blocks.fx != nil && b.Units != nil {
		bd.units = b.Units // keep the grown scratch (never a recovered table's own list)
	}
	return b
}

// Decode decodes block bi into bd and selects its events for sel, counting
// the decode (Decodes).
//
// When the query keeps few of a compressed block's events (a cycle window,
// a unit in a file without unit sets), their arguments are copied out and
// the block's buffer goes straight back to the pool: a seek then holds a
// few kilobytes per block instead of the whole block, and the next block
// decodes into the same, already mapped, memory.
func (f *File) Decode(bi int32, sel *Selector, bd *Decoded) (err error) {
	defer f.Guard(&err, PanicOnFault())
	b := f.BlockWithUnits(bi, bd)
	bd.Block = bi
	f.decodes.Add(1)
	data, buf, err := f.BlockBytes(&b)
	if err != nil {
		return err
	}
	bd.Data, bd.Buf = data, buf
	if err := f.ScanEvents(&b, data, sel, bd); err != nil {
		return err
	}
	if buf != nil && len(bd.Recs)*4 < int(b.EventCount) {
		n := 0
		for i := range bd.Recs {
			n += int(bd.Recs[i].ArgLen)
		}
		own := make([]byte, 0, n)
		for i := range bd.Recs {
			rc := &bd.Recs[i]
			off := len(own)
			own = append(own, data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)]...)
			rc.ArgOff = uint32(off)
		}
		ReleaseData(bd)
		bd.Data = own
	}
	return nil
}

// unitsOf returns the sorted ids of the units whose events data holds
// (data has passed ScanEvents).
func unitsOf(data []byte) []uint16 {
	le := binary.LittleEndian
	var seen [1 << 16 / 64]uint64
	ids := []uint16{}
	for p := 0; p+schema.EventHeaderSize <= len(data); p += schema.EventHeaderSize + int(le.Uint16(data[p:])) {
		u := le.Uint16(data[p+18:])
		if seen[u/64]&(1<<(u%64)) == 0 {
			seen[u/64] |= 1 << (u % 64)
			ids = append(ids, u)
		}
	}
	slices.Sort(ids)
	return ids
}
