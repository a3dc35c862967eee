package export

import (
	"fmt"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/heldmem"
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
// SQL spans table, the Kanata export and the statistics do (heldmem).

const heldCheckMask = heldmem.CheckMask

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
		d.heldLimit = heldmem.Limit(r)
	}
	if held := d.heldBytes(); held > d.heldLimit {
		return heldmem.Exceeded(r, cycle, fmt.Sprintf("the export holds %s of spans open at once and %d tracks", heldmem.SizeText(held), len(d.ts.all)),
			"spans that begin and never end, or a lane per span", "exports it")
	}
	return nil
}

// treeOpenBytes is about what the pre-pass's orderer keeps per async span
// open.
const treeOpenBytes = heldmem.OrdererOpenBytes

// checkPrepassHeld fails the pre-pass (trees.go) when what its orderer
// holds for the async spans open at once passes the export's share of r's
// memory budget: the pre-pass reads the whole trace before the export
// writes anything, so the export's own check came too late (2 million
// async spans never ended: 225 MB and 9 s at --memory 16MiB). The child
// counts it keeps, 4 bytes per span begun, grow with the trace and are
// not counted.
func checkPrepassHeld(r *mmapio.Reader, cycle uint64, open int64) error {
	if held := open * treeOpenBytes; held > heldmem.Limit(r) {
		return heldmem.Exceeded(r, cycle, fmt.Sprintf("the export holds %s for %d async spans open at once", heldmem.SizeText(held), open),
			"async spans that begin and never end", "exports it")
	}
	return nil
}
