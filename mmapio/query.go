package mmapio

import (
	"math"
	"sort"

	"github.com/bits-and-blooms/bitset"

	"github.com/chronon-sim/chronon-go/internal/ctext"
)

// Query selects events by cycle range and by unit. The zero Query selects
// every event; the With methods return a narrowed copy.
//
//	q := mmapio.Query{}.WithCycles(9_000_000, 9_001_000).WithUnits(r.UnitsNamed("core1.l2")...)
type Query struct {
	hasCycles  bool
	start, end uint64
	units      unitFilter
}

// WithCycles keeps events whose cycle lies in [start, end] (inclusive).
func (q Query) WithCycles(start, end uint64) Query {
	q.hasCycles, q.start, q.end = true, start, end
	return q
}

// WithCyclesFrom keeps events at cycle start or later.
func (q Query) WithCyclesFrom(start uint64) Query { return q.WithCycles(start, math.MaxUint64) }

// WithUnits keeps events of the given unit ids. WithUnits() with no id
// selects nothing (for instance when no unit name matched).
//
// A unit query trusts the footer's unit sets (BlockIndex.units, recorded
// by the writer): a block whose set lists none of the wanted units is
// skipped without being decoded, which is what makes the query fast. A
// footer whose sets lie (a block listed for unit 1 holding unit 2's
// events) therefore loses those events from a query of unit 2 without an
// error; every block that is decoded is checked against its set, so a
// query without units (a full dump) reports the lie as an error naming
// the block, and `trace_reader recover` (Rewrite) writes sets taken from
// the events.
func (q Query) WithUnits(ids ...uint16) Query {
	set := bitset.New(1 << 16)
	for _, id := range ids {
		set.Set(uint(id))
	}
	return q.WithUnitSet(set)
}

// WithUnitSet keeps events whose unit id is in set (the set is not copied:
// do not modify it while the query runs).
func (q Query) WithUnitSet(set *bitset.BitSet) Query {
	if set == nil {
		set = bitset.New(0)
	}
	q.units = unitFilter{set: set}
	return q
}

// Cycles returns the query's cycle range and whether it has one.
func (q Query) Cycles() (start, end uint64, ok bool) { return q.start, q.end, q.hasCycles }

// unitFilter is a unit set; the zero value matches every unit.
type unitFilter struct {
	set *bitset.BitSet
}

func (f unitFilter) has(id uint16) bool { return f.set == nil || f.set.Test(uint(id)) }

// any reports whether the filter matches any of ids.
func (f unitFilter) any(ids []uint16) bool {
	if f.set == nil {
		return true
	}
	for _, id := range ids {
		if f.set.Test(uint(id)) {
			return true
		}
	}
	return false
}

// startQuery plans q and starts its pipeline, which renders the events
// with lines when lines is not nil (a dump); nil, nil when no block can
// hold a selected event, ErrClosed after Close.
func (r *Reader) startQuery(q Query, lines *ctext.Lines) (_ *segPipe, err error) {
	defer r.guardFault(&err, panicOnFault()) // the plan is read from the mapped footer
	if !r.rlockMap() {
		return nil, ErrClosed
	}
	defer r.mapMu.RUnlock()
	plan, sel := r.plan(q)
	if len(plan) == 0 {
		return nil, nil
	}
	return r.startSegments(plan, sel, lines)
}

// plan lists the blocks a query needs, in the order the merge takes them
// (by MinCycle, then file offset), and the selector that picks their
// events. Blocks outside the cycle range are found by binary search on the
// index; blocks whose recorded unit set misses the query are skipped;
// blocks without a unit set are kept (their events are filtered one by one).
func (r *Reader) plan(q Query) ([]int32, *selector) {
	lo, hi := 0, len(r.byMin)
	start, end := uint64(0), uint64(math.MaxUint64)
	if q.hasCycles {
		start, end = q.start, q.end
		if start > end {
			return nil, nil
		}
		hi = sort.Search(len(r.byMin), func(i int) bool { return r.blocks.minCycle(r.byMin[i]) > end })
		lo = sort.Search(hi, func(i int) bool { return r.prefMax[i] >= start })
	}
	sel := &selector{start: start, end: end, units: q.units, all: !q.hasCycles && q.units.set == nil}
	if sel.all {
		// Every block, in the index's order: the plan is the index itself
		// (read-only), not a copy of 4 bytes per block.
		if len(r.byMin) == 0 {
			return nil, nil
		}
		return r.byMin[:len(r.byMin):len(r.byMin)], sel
	}
	var blocks []int32 // grows with what is selected: a unit query may keep few
	var units []uint16
	for i := lo; i < hi; i++ {
		bi := r.byMin[i]
		if q.hasCycles && r.blocks.maxCycle(bi) < start {
			continue
		}
		if q.units.set != nil {
			var ok bool
			if units, ok = r.blocks.units(bi, units); ok && !q.units.any(units) {
				continue
			}
		}
		blocks = append(blocks, bi)
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	return blocks, sel
}
