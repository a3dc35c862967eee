//go:build cgo

package tracesql

import (
	"fmt"
	"unsafe"
)

// openSpanBytes is about what an open span takes: its record, and its
// share of a lane's stack or of the async spans' map.
const openSpanBytes = int64(unsafe.Sizeof(openSpan{})) + 16

// openShare is the part of the memory budget the spans open at once in
// one pairing (a trace read serially, or one thread's unit) may take.
const openShare = 4

// opened counts a span opened at cycle; past the pairing's share of the
// budget it sets the sticky error instead of growing without bound: a
// trace whose spans begin and never end (2.2 million of them took 400 MB
// against a 64 MiB budget) is refused like a block too large for the
// budget, naming the file and saying how to read it.
func (s *spanPairs) opened(cycle uint64) {
	s.nOpen++
	if s.err == nil && s.nOpen*openSpanBytes > s.d.budget.limit/openShare {
		s.err = fmt.Errorf("%s: more than %d spans open at once (at cycle %d) need more than a quarter of the memory budget (%d bytes): raise it (--memory) or select fewer cycles or units",
			s.d.traces[s.ti].r.Path(), s.nOpen-1, cycle, s.d.budget.limit)
	}
}

// closed counts n spans ended or handed on as rows.
func (s *spanPairs) closed(n int64) { s.nOpen -= n }
