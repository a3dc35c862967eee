package export

import (
	"fmt"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// What a timeline export holds grows with what is open at once, not with
// the trace: spans begun and not yet ended (a stack per track), the tracks
// (one per lane: a lane argument names any of 2^64) and the complete spans
// waiting for their end. A trace whose spans begin and never end, or whose
// lanes are all distinct, grew without bound (2.2 million open spans:
// 272 MB against a 64 MiB budget). Past a quarter of the reader's memory
// budget (mmapio.WithMemoryBudget, trace_reader's --memory) the export
// stops with an error naming the file, the cycle and the budget, as the
// SQL spans table and the Kanata export do.

// heldCheckMask: the held state is looked at every 4096 events, which
// costs nothing measurable and overshoots the limit by at most 4096
// events' state.
const heldCheckMask = 4096 - 1

var (
	openSpanBytes   = int64(unsafe.Sizeof(openSpan{}))
	trackBytes      = int64(unsafe.Sizeof(track{})) + 16 // and its pointer in the set, its map entry
	pendingEndBytes = int64(unsafe.Sizeof(pendingEnd{}))
)

// push opens span s on track t, counting the stack's growth.
func (d *driver) push(t *track, s openSpan) {
	c := cap(t.open)
	t.open = append(t.open, s)
	d.openBytes += int64(cap(t.open)-c) * openSpanBytes
}

// heldBytes estimates what the export holds for open spans and tracks.
func (d *driver) heldBytes() int64 {
	return d.openBytes + int64(len(d.ts.all))*trackBytes + int64(cap(d.ends))*pendingEndBytes
}

// checkHeld fails the export when what it holds passes its share of r's
// memory budget.
func (d *driver) checkHeld(r *mmapio.Reader, cycle uint64) error {
	if d.heldLimit == 0 {
		d.heldLimit = max(rawread.MemoryBudget(r)/4, 1)
	}
	if held := d.heldBytes(); held > d.heldLimit {
		return fmt.Errorf("%s: at cycle %d the export holds %s of spans open at once and %d tracks, more than a quarter of the memory budget (%s): spans that begin and never end, or a lane per span? A larger budget (--memory) exports it",
			r.Path(), cycle, sizeText(held), len(d.ts.all), sizeText(rawread.MemoryBudget(r)))
	}
	return nil
}

// treeOpenBytes is about what the pre-pass's orderer keeps per async span
// open: an id's map entry, with the map's slack.
const treeOpenBytes = 64

// checkPrepassHeld fails the pre-pass (trees.go) when what its orderer
// holds for the async spans open at once passes the export's share of r's
// memory budget: the pre-pass reads the whole trace before the export
// writes anything, so the export's own check came too late (2 million
// async spans never ended: 225 MB and 9 s at --memory 16MiB). The child
// counts it keeps, 4 bytes per span begun, grow with the trace and are
// not counted.
func checkPrepassHeld(r *mmapio.Reader, cycle uint64, open int64) error {
	limit := max(rawread.MemoryBudget(r)/4, 1)
	if held := open * treeOpenBytes; held > limit {
		return fmt.Errorf("%s: at cycle %d the export holds %s for %d async spans open at once, more than a quarter of the memory budget (%s): async spans that begin and never end? A larger budget (--memory) exports it",
			r.Path(), cycle, sizeText(held), open, sizeText(rawread.MemoryBudget(r)))
	}
	return nil
}

// sizeText writes n bytes in the largest binary unit that keeps it whole
// or at least 1 (rounded down): a held size below 1 MiB read "0 MiB",
// which is no reason to stop an export.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
