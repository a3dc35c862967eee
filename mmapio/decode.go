package mmapio

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/zdec"
	"github.com/chronon-sim/chronon-go/schema"
)

// blockData is one decoded block: its bytes and a record of every event the
// query selects, in cycle order.
type blockData struct {
	block int32
	data  []byte  // decoded bytes; aliases the mapping for a raw block
	buf   *[]byte // pooled buffer data lives in; nil for a raw block
	recs  []rec
	err   error
	units []uint16    // scratch for the block's unit list (read from the footer)
	win   *windowData // a window's copy of the block (window.go), else nil
}

// rec is an event's record decoded once, on a worker, while the block is hot
// in cache: the merge and the consumer then touch 32 bytes per event, with no
// pointers for the garbage collector to scan.
type rec struct {
	cycle  uint64
	fid    uint32
	cat    uint32
	argOff uint32 // offset of the arguments in the block's data
	argLen uint16
	unit   uint16
	argc   uint8
}

// blockDatas recycles block records (their recs arrays), up to 32 MiB.
var blockDatas = bufpool.FreeList[blockData]{Limit: 1024, Budget: 32 << 20,
	Cost: func(bd *blockData) int { return cap(bd.recs)*int(unsafe.Sizeof(rec{})) + 2*cap(bd.units) }}

func (r *Reader) releaseData(bd *blockData) {
	if bd.buf != nil {
		bufpool.Put(bd.buf)
		bd.buf = nil
	}
	bd.data = nil
}

func (r *Reader) release(bd *blockData) {
	if bd == nil {
		return
	}
	r.releaseData(bd)
	*bd = blockData{recs: bd.recs[:0], units: bd.units[:0]}
	blockDatas.Put(bd)
}

// blockBytes returns the uncompressed bytes of block b: the mapped bytes of a
// raw block (no copy), or a compressed block decoded into a pooled buffer
// (returned in buf; the caller puts it back). The inline header must agree
// with what the reader was told about the block (the footer entry).
func (r *Reader) blockBytes(b *Block) (data []byte, buf *[]byte, err error) {
	return r.blockBytesInto(b, nil)
}

// blockBytesInto is blockBytes decoding into own's buffer (then buf is
// own.P, which stays the caller's: not put in the pool) when own is not
// nil. A windowed iteration decodes every block into one buffer of its own
// (windowmem.go).
func (r *Reader) blockBytesInto(b *Block, own *zdec.Own) (data []byte, buf *[]byte, err error) {
	if r.data == nil {
		return nil, nil, ErrClosed
	}
	ih, _ := schema.DecodeBlockHeader(r.data[headerOff(b):])
	if ih != b.Inline() {
		return nil, nil, formatErr(r.path, blockSection(int(b.Index)), headerOff(b),
			"inline header {events %d, cycles %d-%d, sizes %d/%d} disagrees with the footer {events %d, cycles %d-%d, sizes %d/%d}",
			ih.EventCount, ih.MinCycle, ih.MaxCycle, ih.UncompressedSize, ih.CompressedSize,
			b.EventCount, b.MinCycle, b.MaxCycle, b.UncompressedSize, b.CompressedSize)
	}
	src := r.data[payloadOff(b):blockEnd(b)]
	if isRaw(b) {
		return src, nil, nil
	}
	data, buf, err = zdec.Decode(src, int(b.UncompressedSize), own)
	if err != nil {
		return nil, nil, formatErr(r.path, blockSection(int(b.Index)), payloadOff(b), "%v", err)
	}
	return data, buf, nil
}

// selector decides which events of a block a query wants.
type selector struct {
	all        bool // no filter: every event is selected
	start, end uint64
	units      unitFilter
}

// wholeBlock reports whether the query wants every event of b: its cycle
// range lies in the query's and its recorded units (b.Units; nil when it
// records none) are all wanted (a unit query on a file written one unit per
// block).
func (s *selector) wholeBlock(b *Block) bool {
	if s.all {
		return true
	}
	if b.MinCycle < s.start || b.MaxCycle > s.end || b.Units == nil || len(b.Units) == 0 && s.units.set != nil {
		return false
	}
	for _, u := range b.Units {
		if !s.units.has(u) {
			return false
		}
	}
	return true
}

// scanEvents walks every event of block b (data are its uncompressed bytes),
// checks that they fill the block exactly, that there are as many as the
// header says and that their cycles lie in its range, and records the
// selected ones in bd.recs. A block whose events are not in cycle order has
// its records sorted (stably) so the merge still yields cycle order. sel nil
// selects nothing (verification only).
func (r *Reader) scanEvents(b *Block, data []byte, sel *selector, bd *blockData) error {
	le := binary.LittleEndian
	n := len(data)
	lo, hi := b.MinCycle, b.MaxCycle
	var count uint32
	var prev uint64
	sorted := true
	recs := bd.recs[:0]
	uc := newUnitCheck(b.Units)
	if sel != nil && sel.wholeBlock(b) {
		recs = slices.Grow(recs, int(b.EventCount)) // validated: at most usize/26
		// Every event is selected: one tight loop writing records in place.
		recs = recs[:cap(recs)]
		k := 0
		for p := 0; p < n; {
			if n-p < schema.EventHeaderSize {
				return r.eventErr(b, p, "truncated event: %d bytes left, an event needs at least %d", n-p, schema.EventHeaderSize)
			}
			e := data[p : p+schema.EventHeaderSize : p+schema.EventHeaderSize]
			argLen := le.Uint16(e)
			end := p + schema.EventHeaderSize + int(argLen)
			if end > n {
				return r.eventErr(b, p, "event arguments run %d bytes past the end of the block", end-n)
			}
			c := le.Uint64(e[2:])
			if c < lo || c > hi {
				return r.eventErr(b, p, "event cycle %d lies outside the block's range %d-%d", c, lo, hi)
			}
			if c < prev {
				sorted = false
			}
			prev = c
			if u := le.Uint16(e[18:]); !uc.ok(u) {
				return r.unitErr(b, p, u)
			}
			if k == len(recs) {
				recs = append(recs, rec{})
				recs = recs[:cap(recs)]
			}
			rc := &recs[k]
			rc.cycle, rc.fid, rc.cat = c, le.Uint32(e[10:]), le.Uint32(e[14:])
			rc.argOff, rc.argLen, rc.unit, rc.argc = uint32(p+schema.EventHeaderSize), argLen, le.Uint16(e[18:]), e[20]
			k++
			p = end
		}
		recs = recs[:k]
		count = uint32(k)
	} else {
		for p := 0; p < n; {
			if n-p < schema.EventHeaderSize {
				return r.eventErr(b, p, "truncated event: %d bytes left, an event needs at least %d", n-p, schema.EventHeaderSize)
			}
			e := data[p : p+schema.EventHeaderSize]
			argLen := le.Uint16(e)
			end := p + schema.EventHeaderSize + int(argLen)
			if end > n {
				return r.eventErr(b, p, "event arguments run %d bytes past the end of the block", end-n)
			}
			c := le.Uint64(e[2:])
			if c < lo || c > hi {
				return r.eventErr(b, p, "event cycle %d lies outside the block's range %d-%d", c, lo, hi)
			}
			if c < prev {
				sorted = false
			}
			prev = c
			count++
			unit := le.Uint16(e[18:])
			if !uc.ok(unit) {
				return r.unitErr(b, p, unit)
			}
			if sel != nil {
				if c >= sel.start && c <= sel.end && sel.units.has(unit) {
					recs = append(recs, rec{})
					rc := &recs[len(recs)-1]
					rc.cycle, rc.fid, rc.cat = c, le.Uint32(e[10:]), le.Uint32(e[14:])
					rc.argOff, rc.argLen, rc.unit, rc.argc = uint32(p+schema.EventHeaderSize), argLen, unit, e[20]
				}
			}
			p = end
		}
	}
	if count != b.EventCount {
		return formatErr(r.path, blockSection(int(b.Index)), headerOff(b), "block holds %d events, its header says %d", count, b.EventCount)
	}
	if !sorted && len(recs) > 1 {
		slices.SortStableFunc(recs, func(a, b rec) int { return cmp.Compare(a.cycle, b.cycle) })
	}
	bd.recs = recs
	return nil
}

func (r *Reader) unitErr(b *Block, p int, u uint16) error {
	return r.eventErr(b, p, "event of unit %d, but the footer lists the block's units as %v", u, b.Units)
}

func (r *Reader) eventErr(b *Block, p int, format string, args ...any) error {
	if isRaw(b) {
		return formatErr(r.path, blockSection(int(b.Index)), payloadOff(b)+int64(p), format, args...)
	}
	return formatErr(r.path, blockSection(int(b.Index)), payloadOff(b), "at byte %d of the decompressed data: "+format, append([]any{p}, args...)...)
}

// decodeBlock decodes block bi and selects its events for a query.
//
// When the query keeps few of a compressed block's events (a cycle window,
// a unit in a file without unit sets), their arguments are copied out and
// the block's buffer goes straight back to the pool: a seek then holds a
// few kilobytes per block instead of the whole block, and the next block
// decodes into the same, already mapped, memory.
func (r *Reader) decodeBlock(bi int32, sel *selector, bd *blockData) (err error) {
	defer r.guardFault(&err, panicOnFault())
	b := r.blocks.at(bi)
	// wholeBlock and scanEvents's unit check look at the units.
	b.Units, _ = r.blocks.units(bi, bd.units)
	if r.blocks.fx != nil && b.Units != nil {
		bd.units = b.Units // keep the grown scratch (never a recovered table's own list)
	}
	bd.block = bi
	r.decodes.Add(1)
	data, buf, err := r.blockBytes(&b)
	if err != nil {
		return err
	}
	bd.data, bd.buf = data, buf
	if err := r.scanEvents(&b, data, sel, bd); err != nil {
		return err
	}
	if buf != nil && len(bd.recs)*4 < int(b.EventCount) {
		n := 0
		for i := range bd.recs {
			n += int(bd.recs[i].argLen)
		}
		own := make([]byte, 0, n)
		for i := range bd.recs {
			rc := &bd.recs[i]
			off := len(own)
			own = append(own, data[rc.argOff:rc.argOff+uint32(rc.argLen)]...)
			rc.argOff = uint32(off)
		}
		r.releaseData(bd)
		bd.data = own
	}
	return nil
}

// unitsOf returns the sorted ids of the units whose events data holds
// (data has passed scanEvents).
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
