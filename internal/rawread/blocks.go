package rawread

import (
	"fmt"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Block-at-a-time reading, for consumers that do not need the events in
// cycle order across blocks: a SQL engine scans the blocks a query plans on
// several threads at once, each decoding its own blocks, with no merge and
// no read-ahead pipeline. Events and Iter remain the way to read in order.

// Plan returns the indices (into r.Blocks) of the blocks that can hold
// events q selects, in the order a merge would take them: the blocks an
// iteration of q decodes, found the same way (binary search on the cycle
// index, unit sets). The slice is the caller's.
func Plan(r *mmapio.Reader, q mmapio.Query) (plan []int32, err error) {
	f := File(r)
	defer f.Guard(&err, tracefile.PanicOnFault()) // the plan is read from the mapped footer
	if !f.RLock() {
		return nil, mmapio.ErrClosed
	}
	defer f.RUnlock()
	return slices.Clone(f.Plan(link.Selector(q))), nil
}

// Block holds the events of one block that a query selects, in the
// block's cycle order (a block stored out of order is sorted, stably).
// Its events' arguments are valid until Release.
type Block struct {
	r   *mmapio.Reader
	d   *tracefile.Decoded
	sel tracefile.Selector // of the query it was decoded for (IterDecoded)
}

// Decode decodes block bi (an index into r.Blocks, as Plan returns) and
// selects the events q keeps. The block is verified as an iteration
// verifies it; a bad block gives the same error naming the file, the block
// and the byte offset. Release the result when done with it; r's Close
// must not race with its use.
func Decode(r *mmapio.Reader, bi int32, q mmapio.Query) (b *Block, err error) {
	f := File(r)
	defer f.Guard(&err, tracefile.PanicOnFault())
	if !f.RLock() {
		return nil, mmapio.ErrClosed
	}
	defer f.RUnlock()
	if bi < 0 || int(bi) >= f.NumBlocks() {
		return nil, fmt.Errorf("%s: block %d does not exist (the file has %d)", f.Path(), bi, f.NumBlocks())
	}
	sel := link.Selector(q)
	d := tracefile.NewDecoded()
	if err := f.Decode(bi, sel, d); err != nil {
		tracefile.Release(d)
		return nil, err
	}
	return &Block{r: r, d: d, sel: *sel}, nil
}

// Len returns how many events of the block the query selected.
func (b *Block) Len() int { return len(b.d.Recs) }

// Cycle returns the cycle of event i without building the event.
func (b *Block) Cycle(i int) uint64 { return b.d.Recs[i].Cycle }

// Event returns event i (0 <= i < Len). Its arguments are valid until
// Release.
func (b *Block) Event(i int) mmapio.Event { return link.Event(b.r, b.d, i) }

// Bytes is about the memory the block holds: its decoded buffer (none for
// a block stored uncompressed, read in place) and its event records; 0
// once released (or handed to IterDecoded).
func (b *Block) Bytes() int {
	if b.d == nil {
		return 0
	}
	n := cap(b.d.Recs) * int(tracefile.RecSize)
	if b.d.Buf != nil {
		n += cap(*b.d.Buf)
	}
	return n
}

// Release returns the block's buffers to the reader's pools. The block
// must not be used afterwards; a second Release does nothing.
func (b *Block) Release() {
	if b.d != nil {
		tracefile.Release(b.d)
		b.d = nil
	}
}

// IterDecoded is r.Iter(q) for a caller that decoded some of q's blocks
// already with Decode(r, bi, q): a pre-pass over the blocks in any order
// (on several goroutines, with no merge) that then reads the events in
// cycle order. The iteration takes those blocks instead of decoding them
// again.
//
// It owns them from the call on: it releases each once done with it, and
// those it did not use when it stops (Close, the end, an error); the caller
// must neither use nor Release them afterwards. A block decoded for another
// query (another cycle range or unit set) or another Reader is released at
// once, one given twice or not in q's plan when the iteration stops; q
// decodes them again if it needs them. The blocks are memory the caller
// holds until the iteration reaches them, outside the iteration's memory
// budget: the caller bounds them (MemoryBudget).
func IterDecoded(r *mmapio.Reader, q mmapio.Query, blocks []*Block) *mmapio.Iterator {
	sel := *link.Selector(q)
	given := make([]*tracefile.Decoded, 0, len(blocks))
	for _, b := range blocks {
		if b.d == nil {
			continue // released already
		}
		if b.r != r || b.sel != sel {
			b.Release()
			continue
		}
		given = append(given, b.d)
		b.d = nil // the iteration's now
	}
	return link.IterDecoded(r, q, given)
}

// Index returns the position of it's current event among the events of
// its block (Event().Block) that the query selects: the i of
// Block.Event(i) for that block decoded for the same query. A caller that
// prepared something per event of the blocks it decoded (IterDecoded)
// finds it by (Block, Index). It is -1 when the iteration took the event
// from a windowed merge (a memory budget too small to hold the blocks that
// overlap the merge point), whose blocks are cut, and when there is no
// current event.
func Index(it *mmapio.Iterator) int { return link.Index(it) }
