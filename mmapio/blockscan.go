package mmapio

import (
	"fmt"
	"math"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Block-at-a-time reading, for consumers that do not need the events in
// cycle order across blocks: a SQL engine scans the blocks a query plans on
// several threads at once, each decoding its own blocks, with no merge and
// no read-ahead pipeline. Events and Iter remain the way to read in order.

// BlockPlan returns the indices (into Blocks) of the blocks that can hold
// events q selects, in the order a merge would take them: the blocks an
// iteration of q decodes, found the same way (binary search on the cycle
// index, unit sets). The slice is the caller's.
func (r *Reader) BlockPlan(q Query) (plan []int32, err error) {
	defer r.f.Guard(&err, panicOnFault()) // the plan is read from the mapped footer
	if !r.f.RLock() {
		return nil, ErrClosed
	}
	defer r.f.RUnlock()
	return slices.Clone(r.f.Plan(q.selector())), nil
}

// DecodedBlock holds the events of one block that a query selects, in the
// block's cycle order (a block stored out of order is sorted, stably).
// Its events' arguments are valid until Release.
type DecodedBlock struct {
	r   *Reader
	bd  *tracefile.Decoded
	sel tracefile.Selector // of the query it was decoded for (IterDecoded)
}

// DecodeBlock decodes block bi (an index into Blocks, as BlockPlan returns)
// and selects the events q keeps. The block is verified as an iteration
// verifies it; a bad block gives the same error naming the file, the block
// and the byte offset. Release the result when done with it; Close must not
// race with its use.
func (r *Reader) DecodeBlock(bi int32, q Query) (d *DecodedBlock, err error) {
	defer r.f.Guard(&err, panicOnFault())
	if !r.f.RLock() {
		return nil, ErrClosed
	}
	defer r.f.RUnlock()
	if bi < 0 || int(bi) >= r.f.NumBlocks() {
		return nil, fmt.Errorf("%s: block %d does not exist (the file has %d)", r.Path(), bi, r.f.NumBlocks())
	}
	sel := q.selector()
	bd := tracefile.NewDecoded()
	if err := r.f.Decode(bi, sel, bd); err != nil {
		tracefile.Release(bd)
		return nil, err
	}
	return &DecodedBlock{r: r, bd: bd, sel: *sel}, nil
}

// selector is the selector of q's events.
func (q Query) selector() *tracefile.Selector {
	start, end := uint64(0), uint64(math.MaxUint64)
	if q.hasCycles {
		start, end = q.start, q.end
	}
	return &tracefile.Selector{Start: start, End: end, Units: q.units, All: !q.hasCycles && q.units == nil}
}

// Len returns how many events of the block the query selected.
func (d *DecodedBlock) Len() int { return len(d.bd.Recs) }

// Cycle returns the cycle of event i without building the event.
func (d *DecodedBlock) Cycle(i int) uint64 { return d.bd.Recs[i].Cycle }

// Event returns event i (0 <= i < Len). Its arguments are valid until
// Release.
func (d *DecodedBlock) Event(i int) Event { return d.r.eventOf(d.bd, &d.bd.Recs[i]) }

// Bytes is about the memory the block holds: its decoded buffer (none for
// a block stored uncompressed, read in place) and its event records; 0
// once released (or handed to IterDecoded).
func (d *DecodedBlock) Bytes() int {
	if d.bd == nil {
		return 0
	}
	n := cap(d.bd.Recs) * int(tracefile.RecSize)
	if d.bd.Buf != nil {
		n += cap(*d.bd.Buf)
	}
	return n
}

// Release returns the block's buffers to the reader's pools. The block
// must not be used afterwards; a second Release does nothing.
func (d *DecodedBlock) Release() {
	if d.bd != nil {
		tracefile.Release(d.bd)
		d.bd = nil
	}
}

// BlocksDecoded returns how many blocks this Reader has decoded for queries
// so far (iterations, dumps and DecodeBlock): what a seek cost, for tools and
// tests that check a window decodes only the blocks that overlap it.
func (r *Reader) BlocksDecoded() int64 { return r.f.Decodes() }

// AppendBlock appends the uncompressed bytes of block i (the i-th of
// Blocks, file order) to dst, checked as an iteration checks them.
func (r *Reader) AppendBlock(dst []byte, i int) ([]byte, error) { return r.f.AppendBlock(dst, i) }

// SchemaSection returns the offset and size of the schema FlatBuffer the
// reader decoded, or -1, 0 when there is none.
func (r *Reader) SchemaSection() (offset, size int64) { return r.f.SchemaSection() }
