//go:build cgo

package tracesql

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// eventThread is one DuckDB thread's part of an eventRun. It takes tasks
// from the run, and writes a chunk per call from one block at a time: its
// rows selected (rowSet, idx), or, when the query reads only what the
// footer says (count(*), unit), a count of rows with no decoding at all.
type eventThread struct {
	x     *eventRun
	d     *DB
	task  *task
	next  int // the task's next block
	trace int

	rows rowSet
	idx  []int32 // rows of rows to write, from pos on: sel or iota
	sel  []int32 // the rows a filter kept
	iota []int32 // 0, 1, 2, ...: every row of a whole block, never written
	pos  int
	blk  []*rawread.Block // the decoded blocks rows come from
	held int64            // budget taken for them
	park bool             // held across calls (budget.park)

	footer     int // rows of a footer-only block left to write
	footerInfo blockInfo

	it     *mmapio.Iterator // grouped fallback: the task read in order by the reader
	itHull cycleRange
	itHeld int64          // budget taken for it
	inHull map[int32]bool // blocks of the task within itHull
	done   map[int32]bool // blocks of the task read before it

	view argview.View
	buf  []byte
	dict dictBuilder
}

// rowSet is the events of a block (or of blocks merged in cycle order) as
// records: a rec's arguments are data[ArgOff:ArgOff+ArgLen].
type rowSet struct {
	recs []tracefile.Rec
	data []byte
	// block >= 0: every rec is of that block, rec i its i-th event (seq);
	// -1: seqs has each rec's seq (-1: unknown).
	block int32
	seqs  []int64
}

// resume takes the thread's place in the budget back at the start of a
// fill; pause, deferred, gives it up while DuckDB holds the rows (a thread
// that holds decoded data waits parked, not counted as running).
func (th *eventThread) resume() {
	if th.park {
		th.d.budget.unpark()
		th.park = false
	}
}

func (th *eventThread) pause() {
	if th.held+th.itHeld > 0 {
		th.d.budget.park()
		th.park = true
	}
}

// nextRows releases the rows written and reads the next ones: the next
// window of an iteration, or the next block or task; false when no task is
// left.
func (th *eventThread) nextRows() (bool, error) {
	th.release()
	if th.it != nil {
		return true, th.iterate()
	}
	return th.advance()
}

func (th *eventThread) fill(out *chunk) error {
	th.resume()
	defer th.pause()
	for {
		if th.footer > 0 {
			n := min(th.footer, vectorSize)
			th.footer -= n
			th.writeFooter(out, n)
			out.setSize(n)
			return nil
		}
		if th.pos < len(th.idx) {
			n := min(len(th.idx)-th.pos, vectorSize)
			if err := th.writeRows(out, th.idx[th.pos:th.pos+n]); err != nil {
				return err
			}
			th.pos += n
			out.setSize(n)
			return nil
		}
		ok, err := th.nextRows()
		if err != nil {
			return err
		}
		if !ok {
			out.setSize(0)
			return nil
		}
	}
}

// keepRows is the most rows a thread's row lists keep between blocks.
const keepRows = 64 << 10

// release gives back the blocks the thread holds and their budget.
func (th *eventThread) release() {
	for _, b := range th.blk {
		b.Release()
	}
	th.blk = th.blk[:0]
	th.idx, th.pos = nil, 0
	// The rows point into the blocks just released (or a merge's copy):
	// kept, they would hold a block's memory, outside the budget, while
	// the thread waits for its next one.
	th.rows.recs, th.rows.data, th.rows.seqs = nil, nil, th.rows.seqs[:0]
	// The row lists are sized by the block (the budget counted them with
	// it): a small one is kept for the next block, a big one let go.
	if cap(th.sel) > keepRows {
		th.sel = nil
	}
	if cap(th.iota) > keepRows {
		th.iota = nil
	}
	if th.held > 0 {
		th.d.budget.give(th.held)
		th.held = 0
	}
}

// close is called when DuckDB drops the thread's state (the query ended,
// perhaps early: LIMIT).
func (th *eventThread) close() {
	if th.park {
		th.d.budget.unpark()
		th.park = false
	}
	th.release()
	th.endIteration()
}

// endIteration closes the fallback iteration and gives its budget back.
func (th *eventThread) endIteration() error {
	if th.it == nil {
		return nil
	}
	err := th.it.Err()
	th.it.Close()
	th.it = nil
	th.d.budget.give(th.itHeld)
	th.itHeld = 0
	return err
}

// advance loads the next block (or merged blocks, or fallback iteration)
// of the thread's tasks; false at the end of the run.
func (th *eventThread) advance() (bool, error) {
	x := th.x
	for th.task == nil || th.next >= len(th.task.blocks) {
		i := x.next.Add(1) - 1
		if i >= int64(len(x.tasks)) {
			return false, nil
		}
		th.task, th.next, th.trace = &x.tasks[i], 0, int(x.tasks[i].trace)
	}
	tk := th.task
	b := tk.blocks[th.next]
	if x.footer && b.whole && (b.unit >= 0 || !x.unit) {
		th.next++
		th.footer, th.footerInfo = int(b.events), b
		return true, nil
	}
	last := th.next
	if x.e.grouped {
		last = interleaved(tk.blocks, th.next)
	}
	var cost int64
	for _, g := range tk.blocks[th.next : last+1] {
		cost += g.cost
	}
	if !th.d.budget.take(cost) {
		if last > th.next {
			return true, th.startIteration()
		}
		return false, th.tooBig(b)
	}
	th.held = cost
	t := th.d.traces[th.trace]
	for ; th.next <= last; th.next++ {
		blk, err := rawread.Decode(t.r, tk.blocks[th.next].index, mmapio.Query{})
		if err != nil {
			return false, err
		}
		th.blk = append(th.blk, blk)
	}
	if len(th.blk) == 1 {
		th.rows.recs, th.rows.data = th.blk[0].Records()
		th.rows.block, th.rows.seqs = th.blk[0].Index(), th.rows.seqs[:0]
	} else {
		th.merge()
	}
	th.selectRows(b.whole && len(th.blk) == 1)
	return true, nil
}

// tooBig is the error of a block whose decoding alone exceeds the budget.
func (th *eventThread) tooBig(b blockInfo) error {
	t := th.d.traces[th.trace]
	return fmt.Errorf("%s: block %d needs %d bytes decoded, more than the memory budget (%d bytes): raise it (--memory)",
		t.r.Path(), b.index, b.cost, th.d.budget.limit)
}

// interleaved returns the last block of the run of blocks from i on that
// must be merged: a block whose first cycle comes before the last cycle of
// those before it (or ties with it from earlier in the file) interleaves
// with them. Blocks that merely follow each other (a unit's chain, even all
// at one cycle) are read one at a time.
func interleaved(blocks []blockInfo, i int) int {
	end, maxIndex := blocks[i].max, blocks[i].index
	j := i
	for j+1 < len(blocks) {
		nb := blocks[j+1]
		if nb.min > end || nb.min == end && nb.index > maxIndex {
			break
		}
		j++
		end, maxIndex = max(end, nb.max), max(maxIndex, nb.index)
	}
	return j
}

// merge makes th.rows the events of the decoded blocks th.blk in cycle
// order (ties in file order), with their arguments copied.
func (th *eventThread) merge() {
	slices.SortFunc(th.blk, func(a, b *rawread.Block) int { return cmp.Compare(a.Index(), b.Index()) })
	type src struct {
		cycle uint64
		b, i  int32
	}
	var srcs []src
	size := 0
	for bi, b := range th.blk {
		recs, _ := b.Records()
		for i := range recs {
			srcs = append(srcs, src{recs[i].Cycle, int32(bi), int32(i)})
			size += int(recs[i].ArgLen)
		}
	}
	slices.SortStableFunc(srcs, func(a, b src) int { return cmp.Compare(a.cycle, b.cycle) })
	rs := &th.rows
	rs.recs, rs.data, rs.seqs, rs.block = make([]tracefile.Rec, len(srcs)), make([]byte, 0, size), make([]int64, len(srcs)), -1
	for k, s := range srcs {
		recs, data := th.blk[s.b].Records()
		rc := recs[s.i]
		off := len(rs.data)
		rs.data = append(rs.data, data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)]...)
		rc.ArgOff = uint32(off)
		rs.recs[k] = rc
		rs.seqs[k] = int64(th.blk[s.b].Index())<<32 | int64(s.i)
	}
}

// selectRows lists in th.idx the rows of th.rows the table holds.
func (th *eventThread) selectRows(whole bool) {
	e := th.x.e
	sel := &e.sels[th.trace]
	recs := th.rows.recs
	if whole && e.kind == kindEvents {
		// Every row: no filter to run (a full scan's common case).
		for len(th.iota) < len(recs) {
			th.iota = append(th.iota, int32(len(th.iota)))
		}
		th.idx, th.pos = th.iota[:len(recs)], 0
		return
	}
	idx := th.sel[:0]
	fid := int64(-1)
	if e.kind == kindFormat {
		fid = e.ft.ids[th.trace]
	}
	for i := range recs {
		rc := &recs[i]
		if !whole && (!sel.hasCycle(rc.Cycle) || !sel.hasUnit(rc.Unit)) {
			continue
		}
		switch e.kind {
		case kindFormat:
			if int64(rc.Fid) != fid {
				continue
			}
		case kindFlows, kindCounters:
			role := e.want[th.trace][rc.Fid]
			if role == nil {
				continue
			}
			th.view.Reset(role.types, th.rows.data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)], int(rc.Argc))
			if !th.view.Has(role.arg) || e.kind == kindFlows && th.view.Uint(role.arg) == 0 {
				continue // the event does not carry it after all (flow 0: none)
			}
		}
		idx = append(idx, int32(i))
	}
	th.sel = idx
	th.idx, th.pos = idx, 0
}

// startIteration reads the rest of the task through the reader's ordered
// iteration, which holds at most its own memory budget (reading in windows
// when the blocks that overlap do not fit): the fallback for a unit whose
// blocks interleave more than the budget holds at once.
func (th *eventThread) startIteration() error {
	t := th.d.traces[th.trace]
	need := min(rawread.MemoryBudget(t.r), th.d.budget.limit)
	th.d.budget.take(need)
	th.itHeld = need
	sel := &th.x.e.sels[th.trace]
	h := sel.hull()
	h.lo = max(h.lo, th.task.blocks[th.next].min) // the blocks before were read already
	th.inHull, th.done = map[int32]bool{}, map[int32]bool{}
	for _, b := range th.task.blocks[:th.next] {
		th.done[b.index] = true
	}
	for _, b := range th.task.blocks[th.next:] {
		if b.min >= h.lo && b.max <= h.hi {
			th.inHull[b.index] = true
		}
	}
	q := mmapio.Query{}.WithCycles(h.lo, h.hi)
	if th.task.unit >= 0 {
		q = q.WithUnits(uint16(th.task.unit))
	}
	th.it, th.itHull = t.r.Iter(q), h
	th.next = len(th.task.blocks) // the iteration reads them all
	return nil
}

// iterate gathers the fallback iteration's next events into th.rows.
func (th *eventThread) iterate() error {
	units := th.x.blockUnit[th.trace]
	rs := &th.rows
	rs.recs, rs.data, rs.seqs, rs.block = rs.recs[:0], rs.data[:0], rs.seqs[:0], -1
	for len(rs.recs) < vectorSize && th.it.Next() {
		ev := th.it.Event()
		if ev.Block < 0 || int(ev.Block) >= len(units) || units[ev.Block] != th.task.unit || th.done[ev.Block] {
			continue // a block of another task, or read before
		}
		args := ev.RawArgs()
		rs.recs = append(rs.recs, tracefile.Rec{Cycle: ev.Cycle, Fid: ev.FormatID, Cat: ev.Category,
			ArgOff: uint32(len(rs.data)), ArgLen: uint16(len(args)), Unit: ev.UnitID, Argc: ev.ArgCount})
		rs.data = append(rs.data, args...)
		seq := int64(-1)
		if i := rawread.Index(th.it); i >= 0 && th.inHull[ev.Block] {
			seq = int64(ev.Block)<<32 | int64(i)
		}
		rs.seqs = append(rs.seqs, seq)
	}
	if len(rs.recs) == 0 {
		return th.endIteration()
	}
	th.selectRows(false)
	return nil
}
