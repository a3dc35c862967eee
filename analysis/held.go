package analysis

import (
	"fmt"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/heldmem"
)

// What Stats holds beyond its output grows with what is open at once: the
// begin cycles of spans not yet ended (a stack per lane), the async spans
// open (and the orderer's entry for each), the complete spans waiting for
// their end (and, before a cycle window, those that end in it), and a
// sweep for every lane seen (a lane argument names any of
// 2^64). A trace whose spans begin and never end, or with a lane per span,
// grew without bound (300,000 lanes each with a span never ended: 120 MB
// and 5-13 s at --memory 4MiB; 2 million async spans never ended: 486 MB
// and 19-30 s). Past a quarter of the reader's memory budget Stats stops with
// an error naming the file, the cycle and the budget, as the exports do.
//
// Not counted: the distributions (they grow with distinct durations, the
// output), the flow ids' last positions and, with parent links, the trees
// (a node per async span, which the critical paths need whole).

var (
	stackBytes = int64(unsafe.Sizeof(uint64(0)))
	// A map entry: its key and value, and about 16 bytes of the map's slack.
	laneBytes    = int64(unsafe.Sizeof(laneKey{})+unsafe.Sizeof([]uint64(nil))) + 16
	sweepBytes   = int64(unsafe.Sizeof(occKey{})+unsafe.Sizeof((*sweep)(nil))+unsafe.Sizeof(sweep{})) + 16
	asyncBytes   = int64(unsafe.Sizeof(int64(0))+unsafe.Sizeof(openAsync{})) + 16 + heldmem.OrdererOpenBytes
	pendingBytes = int64(unsafe.Sizeof(pending{}))
	earlyBytes   = int64(unsafe.Sizeof(earlyComplete{}))
)

// push opens a span begun at c on lane lk, counting the stack's growth.
func (s *stater) push(lk laneKey, c uint64) {
	st := s.open[lk]
	n := cap(st)
	s.open[lk] = append(st, c)
	s.stackBytes += int64(cap(s.open[lk])-n) * stackBytes
}

// heldBytes estimates what s holds for open spans and lanes.
func (s *stater) heldBytes() int64 {
	return s.stackBytes + int64(len(s.open))*laneBytes + int64(len(s.occ))*sweepBytes +
		int64(len(s.async))*asyncBytes + int64(cap(s.ends))*pendingBytes + int64(cap(s.win.early))*earlyBytes
}

// checkHeld fails Stats when what s holds passes its share of the
// reader's memory budget.
func (s *stater) checkHeld(cycle uint64) error {
	if s.heldLimit == 0 {
		s.heldLimit = heldmem.Limit(s.r)
	}
	if held := s.heldBytes(); held > s.heldLimit {
		return heldmem.Exceeded(s.r, cycle,
			fmt.Sprintf("the statistics hold %s for %d spans open at once and %d lanes", heldmem.SizeText(held), s.openSpans(), s.lanes),
			"spans that begin and never end, or a lane per span", "reads it")
	}
	return nil
}

// openSpans counts the spans begun and not ended.
func (s *stater) openSpans() int {
	n := len(s.async) + len(s.ends) + len(s.win.early)
	for _, st := range s.open {
		n += len(st)
	}
	return n
}
