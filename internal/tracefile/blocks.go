package tracefile

import (
	"sync"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/schema"
)

// blockTable is the reader's list of blocks, in file order.
//
// For a file with a footer the entries are read in place from the mapped
// footer (schema.FooterIndex): the reader holds no per-block copy, so a dump
// of a multi-gigabyte trace keeps its memory within the bound (the
// copy cost 64 bytes per block plus unit lists: 10 MB on a 2 GB trace). A
// recovered file has no footer: its entries, found by walking the inline
// headers, are kept in list.
//
// Entries are returned by value with Index set to the position (whatever
// the writer recorded) and Units nil; units returns the unit list.
type blockTable struct {
	fx   *schema.FooterIndex
	list []Block

	once sync.Once
	all  []Block // Blocks(), built on first use for a footer-backed table
}

func (t *blockTable) len() int {
	if t.fx != nil {
		return t.fx.Len()
	}
	return len(t.list)
}

// at returns entry i without its unit list.
func (t *blockTable) at(i int32) Block {
	if t.fx != nil {
		b := t.fx.Block(int(i))
		b.Index = uint32(i)
		return b
	}
	b := t.list[i]
	b.Units = nil
	return b
}

// units returns entry i's unit list (appended to dst[:0] for a footer-backed
// table) and whether the entry records one.
func (t *blockTable) units(i int32, dst []uint16) ([]uint16, bool) {
	if t.fx != nil {
		return t.fx.BlockUnits(int(i), dst)
	}
	u := t.list[i].Units
	return u, u != nil
}

func (t *blockTable) minCycle(i int32) uint64 {
	if t.fx != nil {
		return t.fx.BlockMinCycle(int(i))
	}
	return t.list[i].MinCycle
}

func (t *blockTable) maxCycle(i int32) uint64 {
	if t.fx != nil {
		return t.fx.BlockMaxCycle(int(i))
	}
	return t.list[i].MaxCycle
}

func (t *blockTable) uncompressedSize(i int32) uint32 {
	if t.fx != nil {
		return t.fx.BlockUncompressedSize(int(i))
	}
	return t.list[i].UncompressedSize
}

// decoded returns what blocks has returned so far (nil if never called for
// a footer-backed table), without touching the footer.
func (t *blockTable) decoded() []Block {
	if t.fx == nil {
		return t.list
	}
	t.once.Do(func() {}) // a later blocks call must not decode: the footer is gone
	return t.all
}

// blocks returns every entry with its unit list, decoded once for a
// footer-backed table.
func (t *blockTable) blocks() []Block {
	if t.fx == nil {
		return t.list
	}
	t.once.Do(func() {
		t.all = t.fx.Blocks()
		for i := range t.all {
			t.all[i].Index = uint32(i)
		}
	})
	return t.all
}

// blockKeys are the blocks' sort keys for buildIndex, by block index: copied
// out once, because sorting through the footer's vtables would cost a
// lookup per comparison. They live only until the index is built.
type blockKeys struct {
	offs, mins, maxs []uint64
	events           uint64
	unitSets         bool   // every block records its units
	empty            []bool // by block index, nil when no block is empty
}

func (k *blockKeys) alloc(n int) {
	k.offs, k.mins, k.maxs = make([]uint64, n), make([]uint64, n), make([]uint64, n)
}

// add records block i (allocated by alloc; unitSets starts true).
func (k *blockKeys) add(i int, b *Block, hasUnits bool) {
	k.offs[i], k.mins[i], k.maxs[i] = b.DataOffset, b.MinCycle, b.MaxCycle
	k.events += uint64(b.EventCount)
	if empty(b) {
		if k.empty == nil {
			k.empty = make([]bool, len(k.offs))
		}
		k.empty[i] = true
	}
	k.unitSets = k.unitSets && hasUnits
}

// listKeys collects the keys of a recovered file's blocks.
func listKeys(list []Block) blockKeys {
	k := blockKeys{unitSets: true}
	k.alloc(len(list))
	for i := range list {
		k.add(i, &list[i], list[i].Units != nil)
	}
	return k
}

// plausible says why inline header h cannot describe a block ("" when it
// can). It is schema's check plus the empty block the format allows: no
// events, no uncompressed bytes, and as data either nothing or zstd frames
// that decode to nothing (skippable frames included). An empty block's
// cycle range is meaningless (a writer flushing an empty buffer may leave
// any value there): it holds no event, so it is left out of the seek index
// and never planned.
func plausible(h schema.BlockHeader) string {
	if h.EventCount == 0 && h.UncompressedSize == 0 {
		if h.CompressedSize > schema.MaxBlockSize {
			return "empty block with more compressed bytes than the 64 MiB limit"
		}
		return ""
	}
	return h.Plausible()
}

// empty reports whether b is an empty block (see plausible).
func empty(b *Block) bool { return b.EventCount == 0 && b.UncompressedSize == 0 }

// Verifiers is how many of cands may be verified at once within the
// memory budget: each holds a decoded buffer of up to its block's size.
func (f *File) Verifiers(cands []Block) int {
	var most int64
	for i := range cands {
		if b := &cands[i]; !IsRaw(b) && b.UncompressedSize > 0 {
			most = max(most, int64(1)<<bufpool.Class(int(b.UncompressedSize)))
		}
	}
	if most == 0 {
		return len(cands)
	}
	return int(max(1, min(int64(len(cands)), f.opts.MemBudget/most)))
}

// At returns block i's entry without its unit list (Index set to i). The
// caller holds RLock: a footer's entries are read in place.
func (f *File) At(i int32) Block { return f.blocks.at(i) }

// MinCycle, MaxCycle and UncompressedSize read one field of block i's entry
// (the caller holds RLock).
func (f *File) MinCycle(i int32) uint64         { return f.blocks.minCycle(i) }
func (f *File) MaxCycle(i int32) uint64         { return f.blocks.maxCycle(i) }
func (f *File) UncompressedSize(i int32) uint32 { return f.blocks.uncompressedSize(i) }
