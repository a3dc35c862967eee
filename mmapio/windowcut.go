package mmapio

import (
	"math"
	"slices"
	"sort"
	"unsafe"
)

// The cut of a window (window.go): when the events a window keeps outgrow
// its share of the budget, the ones latest in merge order are dropped and
// the window ends before them.

// cutWindow lowers the cut until the kept events cost at most target bytes
// (at least one event stays) and returns what they cost.
//
// The cut goes at a cycle boundary, found by binary search on the cycle:
// each step sums, over the kept blocks, what their events before the
// cycle cost (a binary search in each block; a block's arguments are
// contiguous, so an event's argOff is the argument bytes before it).
// Only when the first cycle alone costs more than target are the events
// of that cycle sorted to cut inside it.
func (sp *segPipe) cutWindow(kept []*winBlock, cut *wkey, target int64) int64 {
	costBefore := func(k wkey) int64 {
		var sum int64
		for _, kb := range kept {
			n := sort.Search(len(kb.Recs), func(j int) bool { return kb.key(j).compare(k) >= 0 })
			sum += kb.prefixCost(n)
		}
		return sum
	}
	lo, hi := uint64(math.MaxUint64), uint64(0) // cycles of the kept events
	for _, kb := range kept {
		if len(kb.Recs) > 0 {
			lo, hi = min(lo, kb.Recs[0].Cycle), max(hi, kb.Recs[len(kb.Recs)-1].Cycle)
		}
	}
	// The largest cycle c in (lo, hi] whose events before it fit.
	c := lo + uint64(sort.Search(int(min(hi-lo, math.MaxInt32)), func(i int) bool {
		return costBefore(wkey{cycle: lo + uint64(i) + 1}) > target
	}))
	k := wkey{cycle: c}
	if c == lo {
		k = sp.cutInCycle(kept, lo, target)
	}
	if k.compare(*cut) < 0 {
		*cut = k
	}
	var total int64
	for _, kb := range kept {
		m := sort.Search(len(kb.Recs), func(j int) bool { return kb.key(j).compare(*cut) >= 0 })
		total += sp.shrinkWindowData(kb, m)
	}
	return total
}

// cutInCycle returns the key of the first event of cycle c (the window's
// first cycle) past target bytes; at least one event stays before it.
func (sp *segPipe) cutInCycle(kept []*winBlock, c uint64, target int64) wkey {
	var n int
	for _, kb := range kept {
		for i := 0; i < len(kb.Recs) && kb.Recs[i].Cycle == c; i++ {
			n++
		}
	}
	kc := make([]keyCost, 0, n)
	for _, kb := range kept {
		for i := 0; i < len(kb.Recs) && kb.Recs[i].Cycle == c; i++ {
			kc = append(kc, keyCost{kb.key(i), windowBytesPerEvent + int64(kb.Recs[i].ArgLen)})
		}
	}
	// The scratch takes the room of the copy a cut makes (no copy yet).
	scratch := int64(cap(kc)) * int64(unsafe.Sizeof(keyCost{}))
	sp.mu.Lock()
	sp.reserve(scratch)
	sp.mu.Unlock()
	defer func() {
		sp.mu.Lock()
		sp.inUse -= scratch
		sp.mu.Unlock()
	}()
	slices.SortFunc(kc, func(a, b keyCost) int { return a.k.compare(b.k) })
	var sum int64
	for i := range kc {
		if sum += kc[i].c; i > 0 && sum > target {
			return kc[i].k
		}
	}
	return wkey{cycle: c + 1}
}

// prefixCost is what the first n kept events of a window's block cost.
func (kb *winBlock) prefixCost(n int) int64 {
	args := int64(len(kb.Data))
	if n < len(kb.Recs) {
		args = int64(kb.Recs[n].ArgOff)
	}
	return int64(n)*windowBytesPerEvent + args
}

// shrinkWindowData keeps the first n records of a window's block and
// returns what it then costs. The rest stays in the arena, unused, until
// the arena is compacted (windowmem.go): no copy, no garbage.
func (sp *segPipe) shrinkWindowData(kb *winBlock, n int) int64 {
	if n < len(kb.Recs) {
		before := kb.mergeCost()
		end := uint32(0)
		if n > 0 {
			end = kb.Recs[n-1].ArgOff + uint32(kb.Recs[n-1].ArgLen)
		}
		kb.Recs, kb.offs, kb.Data = kb.Recs[:n:n], kb.offs[:n:n], kb.Data[:end:end]
		sp.mu.Lock()
		sp.inUse -= before - kb.mergeCost()
		sp.mu.Unlock()
	}
	return kb.windowCost()
}

func (sp *segPipe) dropWindowData(kb *winBlock) {
	sp.mu.Lock()
	sp.inUse -= kb.mergeCost()
	sp.mu.Unlock()
	kb.Recs, kb.offs, kb.Data = nil, nil, nil
}
