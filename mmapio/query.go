package mmapio

import (
	"math"

	"github.com/bits-and-blooms/bitset"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Query selects events by cycle range and by unit. The zero Query selects
// every event; the With methods return a narrowed copy.
//
//	q := mmapio.Query{}.WithCycles(9_000_000, 9_001_000).WithUnits(r.UnitsNamed("core1.l2")...)
type Query struct {
	hasCycles  bool
	start, end uint64
	units      *bitset.BitSet // nil: every unit
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
// A unit query trusts the footer's unit sets (Block.Units, recorded by the
// writer): a block whose set lists none of the wanted units is
// skipped without being decoded, which is what makes the query fast. A
// footer whose sets lie (a block listed for unit 1 holding unit 2's
// events) therefore loses those events from a query of unit 2 without an
// error; every block that is decoded is checked against its set, so a
// query without units (a full dump) reports the lie as an error naming
// the block, and `trace_reader recover` (rewrite.Complete) writes sets
// taken from the events.
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
	q.units = set
	return q
}

// Cycles returns the query's cycle range and whether it has one.
func (q Query) Cycles() (start, end uint64, ok bool) { return q.start, q.end, q.hasCycles }

// selector is the selector of q's events.
func (q Query) selector() *tracefile.Selector {
	start, end := uint64(0), uint64(math.MaxUint64)
	if q.hasCycles {
		start, end = q.start, q.end
	}
	return &tracefile.Selector{Start: start, End: end, Units: q.units, All: !q.hasCycles && q.units == nil}
}

// startQuery plans q and starts its pipeline, which renders the events
// with lines when lines is not nil (a dump); nil, nil when no block can
// hold a selected event, ErrClosed after Close.
func (r *Reader) startQuery(q Query, lines *ctext.Lines) (_ *segPipe, err error) {
	defer r.f.Guard(&err, panicOnFault()) // the plan is read from the mapped footer
	if !r.f.RLock() {
		return nil, ErrClosed
	}
	defer r.f.RUnlock()
	sel := q.selector()
	plan := r.f.Plan(sel)
	if len(plan) == 0 {
		return nil, nil
	}
	return r.startSegments(plan, sel, lines)
}
