package tracefile

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// The seek index: the blocks sorted by (MinCycle, file offset) with a
// prefix maximum of MaxCycle, so that the blocks a cycle range needs are
// found by binary search, and each block's rank by file offset, which
// breaks the ties of a merge (events of equal cycles come in file order).

// Rank is the rank of block i by file offset.
func (f *File) Rank(i int32) uint32 {
	if f.rank == nil {
		return uint32(i)
	}
	return f.rank[i]
}

// buildIndex sorts the blocks for seeking: by (MinCycle, Offset) with a
// prefix maximum of MaxCycle, and ranks them by offset for the merge's ties
// (rank stays nil when the footer lists the blocks in file order, as every
// writer does: the rank is then the index). keys are the blocks' sort keys,
// collected while the footer was verified.
func (f *File) buildIndex(keys *blockKeys) {
	n := len(keys.offs)
	f.byMin = make([]int32, n)
	for i := range f.byMin {
		f.byMin[i] = int32(i)
	}
	offs, mins, maxs := keys.offs, keys.mins, keys.maxs
	offLess := func(a, b int32) int { return cmp.Compare(offs[a], offs[b]) }
	if !slices.IsSortedFunc(f.byMin, offLess) {
		slices.SortStableFunc(f.byMin, offLess)
		f.rank = make([]uint32, n)
		for rk, i := range f.byMin {
			f.rank[i] = uint32(rk)
		}
	}
	if keys.empty != nil {
		// Empty blocks hold no event and their cycle range means nothing:
		// no query plans them (Blocks still lists them).
		f.byMin = slices.DeleteFunc(f.byMin, func(i int32) bool { return keys.empty[i] })
		n = len(f.byMin)
	}
	minLess := func(a, b int32) int {
		if c := cmp.Compare(mins[a], mins[b]); c != 0 {
			return c
		}
		return cmp.Compare(f.Rank(a), f.Rank(b))
	}
	if !slices.IsSortedFunc(f.byMin, minLess) {
		slices.SortFunc(f.byMin, minLess)
	}
	f.prefMax = make([]uint64, n)
	var m uint64
	for i, b := range f.byMin {
		m = max(m, maxs[b])
		f.prefMax[i] = m
	}
	f.unitSets = n > 0 && keys.unitSets
}

// Plan lists the blocks that can hold events sel selects, in the order a
// merge takes them (by MinCycle, then file offset): nil when there are
// none. Blocks outside the cycle range are found by binary search on the
// index; blocks whose recorded unit set misses sel's units are skipped;
// blocks without a unit set are kept (their events are filtered one by
// one). A plan of every block is the index itself: read-only, and not the
// caller's. The caller holds RLock (the footer is read in place).
func (f *File) Plan(sel *Selector) []int32 {
	lo, hi := 0, len(f.byMin)
	cycles := sel.Start != 0 || sel.End != math.MaxUint64
	if sel.All {
		// Every block, in the index's order: the plan is the index itself
		// (read-only), not a copy of 4 bytes per block.
		if len(f.byMin) == 0 {
			return nil
		}
		return f.byMin[:len(f.byMin):len(f.byMin)]
	}
	if sel.Start > sel.End {
		return nil
	}
	if cycles {
		hi = sort.Search(len(f.byMin), func(i int) bool { return f.blocks.minCycle(f.byMin[i]) > sel.End })
		lo = sort.Search(hi, func(i int) bool { return f.prefMax[i] >= sel.Start })
	}
	var blocks []int32 // grows with what is selected: a unit query may keep few
	var units []uint16
	for i := lo; i < hi; i++ {
		bi := f.byMin[i]
		if cycles && f.blocks.maxCycle(bi) < sel.Start {
			continue
		}
		if sel.Units != nil {
			var ok bool
			if units, ok = f.blocks.units(bi, units); ok && !sel.any(units) {
				continue
			}
		}
		blocks = append(blocks, bi)
	}
	return blocks
}
