package export

import (
	"math"
	"math/bits"

	"github.com/chronon-sim/chronon-go/internal/minheap"
)

// kEnds holds the pending ends of complete spans, taken out in (cycle,
// seq) order. Pipeline stages are short, so most ends fall within kWheel
// cycles of the time they are pushed at: those go to a timing wheel, one
// slot per cycle (slot cycle mod kWheel, entries in push order, which is
// seq order), found through a bitmap of the slots in use; a push and a pop
// cost a few instructions instead of a heap's log n swaps. Ends further
// away go to a heap (far); pop takes the smaller of the two fronts.
//
// Invariant: every end in the wheel has a cycle in [lo, lo+kWheel), lo
// being the cycle the ends were last taken up to (the export pushes at
// that cycle), so distinct cycles never share a slot.
type kEnds struct {
	wheel [kWheel][]kEnd
	head  [kWheel]int // next entry of each slot
	used  uint64      // bit s: slot s holds entries
	lo    uint64
	n     int                // ends in the wheel
	far   minheap.Heap[kEnd] // by (cycle, seq)
	// min is at most the cycle of the first end (MaxUint64 when none):
	// most events have no end due, and next tells so without reading the
	// wheel. push lowers it, a take sets it to the first end's cycle.
	min  uint64
	slot int // of the end peek returned; -1: far's first
}

const kWheel = 64

func (q *kEnds) len() int { return q.n + len(q.far) }

// push adds an end at or after now, the cycle of the last take.
func (q *kEnds) push(e kEnd) {
	if e.cycle-q.lo >= kWheel || e.cycle < q.lo {
		q.min = min(q.min, e.cycle)
		q.far.Push(e.cycle, e.seq, e)
		return
	}
	q.min = min(q.min, e.cycle)
	s := e.cycle % kWheel
	q.wheel[s] = append(q.wheel[s], e)
	q.used |= 1 << s
	q.n++
}

// next returns the end to take first, if its cycle is at most c, and
// takes it.
func (q *kEnds) next(c uint64) (kEnd, bool) {
	e := q.peek(c)
	if e == nil {
		return kEnd{}, false
	}
	v := *e
	q.pop()
	return v, true
}

// peek returns the end to take first if its cycle is at most c, else nil;
// pop takes it. The end is read in place (flushEnds takes 1 per complete
// span: copies of it through next showed in profiles).
func (q *kEnds) peek(c uint64) *kEnd {
	if q.min > c {
		return nil
	}
	if q.used != 0 {
		r := q.lo % kWheel
		ws := int((r + uint64(bits.TrailingZeros64(bits.RotateLeft64(q.used, -int(r))))) % kWheel)
		if e := &q.wheel[ws][q.head[ws]]; len(q.far) == 0 || lessEnd(e, &q.far[0].Value) {
			if e.cycle > c {
				q.min = q.first()
				return nil
			}
			q.slot = ws
			return e
		}
	}
	if len(q.far) > 0 && q.far[0].Key <= c {
		q.slot = -1
		return &q.far[0].Value
	}
	q.min = q.first()
	return nil
}

// pop takes the end peek returned.
func (q *kEnds) pop() {
	if ws := q.slot; ws >= 0 {
		q.lo = q.wheel[ws][q.head[ws]].cycle
		q.wheel[ws][q.head[ws]] = kEnd{} // drop the pointer
		q.head[ws]++
		q.n--
		if q.head[ws] == len(q.wheel[ws]) { // a slot's ends share a cycle: all taken together
			q.wheel[ws], q.head[ws] = q.wheel[ws][:0], 0
			q.used &^= 1 << ws
		}
	} else {
		e := q.far.Pop().Value
		q.lo = max(q.lo, e.cycle)
	}
	q.min = q.first()
}

// first is the cycle of the first end, MaxUint64 when none: an end in the
// wheel, at slot s, has cycle lo + (s - lo) mod kWheel (the invariant).
func (q *kEnds) first() uint64 {
	c := uint64(math.MaxUint64)
	if q.used != 0 {
		c = q.lo + uint64(bits.TrailingZeros64(bits.RotateLeft64(q.used, -int(q.lo%kWheel))))
	}
	if len(q.far) > 0 {
		c = min(c, q.far[0].Key)
	}
	return c
}

// done records that the ends up to c were taken.
func (q *kEnds) done(c uint64) { q.lo = max(q.lo, c) }

func lessEnd(a, b *kEnd) bool {
	return a.cycle < b.cycle || (a.cycle == b.cycle && a.seq < b.seq)
}
