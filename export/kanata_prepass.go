package export

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// lastEvents knows how many events each instruction (a flow id of a run)
// has in the export's selection: the Kanata export retires an instruction
// at the end of its last stage, and a Kanata log cannot go back to a cycle
// once it has stepped past it, so whether more is to come must be known
// when an event is written. An event has a successor in its flow exactly
// when fewer than its flow's count of events came up to it; counting does
// not depend on the order, so the pre-pass reads the selected blocks in any
// order, on every core, without the merge in cycle order an iteration
// does (which cost as much as the decoding). The export takes a flow's
// count when the flow's instruction begins (take) and counts down from it.
//
// Memory: 16 bytes per flow id (flowCounts).
type lastEvents struct {
	counts    []*flowCounts // by run: events of each flow id not taken yet
	events    uint64        // events selected, with a flow or not
	n         uint64        // flow events
	flowSpans uint64        // ... that are spans
	spans     uint64        // span events, with a flow or not
	asyncs    uint64        // async span events (not stages), with a flow or not
	deps      bool          // some flow event has a dependency argument
	retires   bool          // some flow event is a retirement (schema.KindRetire)
	kept      []*rawread.Block
	preps     []*kPrep // by block index: the text of the kept blocks' flow events
}

// kPrepOf is a kept block's text with the block's index.
type kPrepOf struct {
	block int32
	p     *kPrep
}

// The pre-pass keeps the blocks it decoded, with their flow events' text
// (kPrep), up to a quarter of the
// reader's memory budget (mmapio.WithMemoryBudget, trace_reader's
// --memory; 64 MiB by default), for the export's iteration
// (rawread.IterDecoded), which then does not decode them again (decoding
// twice was a quarter of the export's work): a trace up to about that size
// decoded is decoded once, a larger one has the rest decoded again. They
// are held beside what the iteration holds until it reaches them.
const kKeepShare = 4

// KanataMemory is what the Kanata export holds beyond its reader's memory
// budget: the blocks its pre-pass decoded and keeps for the iteration
// with their events' text, at most a quarter of the budget. A process bounding its memory by the
// budget (mmapio.ProcessMemoryLimit) adds it for a Kanata export.
func KanataMemory(budget int64) int64 { return budget / kKeepShare }

// release gives back the blocks kept when the export stops before its
// iteration takes them.
func (le *lastEvents) release() {
	for _, d := range le.kept {
		d.Release()
	}
	le.kept = nil
	releasePreps(le.preps)
	le.preps = nil
}

// flowEventID returns the flow id of an event of format f, or 0 when the
// event belongs to no instruction; v is scratch.
func flowEventID(f *kFmt, ev *mmapio.Event, v *argview.View) uint64 {
	id, _ := f.arg(f.flow, ev, v)
	return id
}

// take returns the events of a run's flow not taken yet (the instruction
// beginning with the current event has that many, it included) and forgets
// them: a flow id reused after its instruction retired has none left, so
// it cannot begin again. At least 1: the current event.
func (le *lastEvents) take(run uint16, flow uint64) uint64 {
	return max(le.counts[run].take(flow), 1)
}

// skip counts off an event of a run's flow that begins no instruction (a
// flush of a flow never exported).
func (le *lastEvents) skip(run uint16, flow uint64) {
	le.counts[run].skip(flow)
}

// scanLastEvents runs the pre-pass: the blocks q plans, decoded by one
// goroutine per core, each counting into its own tables, which are then
// added up. Flows are counted within a run (labels and runOf as
// exportRuns gives them). A block that does not decode fails the export
// with the error an iteration of q reports (the first bad block in cycle
// order, with what it names), as the export's own iteration would.
func scanLastEvents(r *mmapio.Reader, q mmapio.Query, fmts []*kFmt, units kUnits, labels []string, runOf []uint16) (*lastEvents, error) {
	plan, err := rawread.Plan(r, q)
	if err != nil {
		return nil, err
	}
	nruns := runs.Count(labels)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(plan), 16))
	counters := make([]*flowCounter, workers)
	var failed atomic.Bool
	var kept atomic.Int64 // bytes of the blocks kept, their records included
	var full atomic.Bool  // a block did not fit: keep no more
	// The workers take the blocks in plan order, the next one free each,
	// rather than a part each: on a busy host one worker can get much less
	// time than the other, and a part would wait for it.
	var next atomic.Int64
	keep := rawread.MemoryBudget(r) / kKeepShare
	var wg sync.WaitGroup
	for w := range counters {
		c := newFlowCounter(nruns)
		c.maker = kRecMaker{units: units, runOf: runOf}
		counters[w] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(plan) {
					break
				}
				bi := plan[i]
				if failed.Load() {
					return
				}
				d, err := rawread.Decode(r, bi, q)
				if err != nil {
					failed.Store(true)
					return
				}
				if full.Load() { // count only
					c.block(d, fmts, runOf, nil)
					d.Release()
					continue
				}
				p := kPreps.Get().(*kPrep)
				c.block(d, fmts, runOf, p)
				if n := int64(d.Bytes() + p.bytes()); kept.Add(n) <= keep {
					c.kept = append(c.kept, d)
					c.preps = append(c.preps, kPrepOf{bi, p})
				} else {
					kept.Add(-n)
					full.Store(true) // the next blocks would not fit either, mostly
					kPreps.Put(p)
					d.Release()
				}
			}
			c.flush()
		}()
	}
	wg.Wait()
	le := &lastEvents{counts: counters[0].counts}
	for _, c := range counters {
		le.kept = append(le.kept, c.kept...)
		for _, p := range c.preps {
			for int(p.block) >= len(le.preps) {
				le.preps = append(le.preps, nil)
			}
			le.preps[p.block] = p.p
		}
	}
	if failed.Load() {
		le.release()
		return nil, iterErr(r, q)
	}
	for _, c := range counters {
		le.events += c.events
		le.n += c.n
		le.flowSpans += c.flowSpans
		le.spans += c.spans
		le.asyncs += c.asyncs
		le.deps = le.deps || c.deps
		le.retires = le.retires || c.retires
	}
	for _, c := range counters[1:] {
		for run, fc := range c.counts {
			le.counts[run] = le.counts[run].merge(fc)
		}
	}
	return le, nil
}

// iterErr is the error an iteration of q ends with: what the export
// reports for a file with a bad block.
func iterErr(r *mmapio.Reader, q mmapio.Query) error {
	it := r.Iter(q)
	defer it.Close()
	for it.Next() {
	}
	if err := it.Err(); err != nil {
		return err
	}
	return r.Err()
}

// flowCounter is one pre-pass goroutine's counts, over the blocks it took,
// in plan order (an instruction's events are mostly in one block, its flow
// ids mostly increase). Its events come close together, so a direct-mapped
// cache (recent, slot id mod kCountSlots) adds them up before they reach
// the counts: an entry per flow, not per event.
type flowCounter struct {
	counts                      []*flowCounts
	recent                      [kCountSlots]kCount
	view                        argview.View
	events, n, flowSpans, spans uint64
	asyncs                      uint64
	deps, retires               bool
	kept                        []*rawread.Block
	preps                       []kPrepOf
	maker                       kRecMaker
}

type kCount struct {
	id, n uint64 // n 0: unused
	run   uint16
}

const kCountSlots = 1 << 12

func newFlowCounter(nruns int) *flowCounter {
	c := &flowCounter{counts: make([]*flowCounts, nruns)}
	for i := range c.counts {
		c.counts[i] = &flowCounts{}
	}
	return c
}

// block counts the flow events of block d; unless p is nil it makes their
// text too (kPrep), in the same pass.
func (c *flowCounter) block(d *rawread.Block, fmts []*kFmt, runOf []uint16, p *kPrep) {
	n := d.Len()
	c.events += uint64(n)
	if p != nil {
		// Sized once for the block (most events have a flow; a line of
		// text is about 60 bytes), not grown by appends: their copies
		// were most of a single export's garbage.
		p.at = slices.Grow(p.at[:0], n+1)[:n+1]
		p.text = slices.Grow(p.text[:0], 56*n)
	}
	for i := 0; i < n; i++ {
		if p != nil {
			p.at[i] = uint32(len(p.text))
		}
		ev := d.Event(i)
		if int(ev.FormatID) >= len(fmts) || fmts[ev.FormatID] == nil {
			continue
		}
		f := fmts[ev.FormatID]
		if f.isSpan() {
			c.spans++
		} else if f.async {
			c.asyncs++
		}
		if f.flow < 0 {
			continue
		}
		id := flowEventID(f, &ev, &c.view)
		if id == 0 {
			continue
		}
		c.n++
		if p != nil {
			p.text = c.maker.text(p.text, &ev)
		}
		if f.isSpan() {
			c.flowSpans++
		}
		if f.dep >= 0 {
			c.deps = true
		}
		if f.kind == schema.KindRetire {
			c.retires = true
		}
		var run uint16
		if runOf != nil {
			run = runOf[ev.UnitID]
		}
		s := &c.recent[id%kCountSlots]
		if s.n != 0 && s.id == id && s.run == run {
			s.n++
			continue
		}
		if s.n != 0 {
			c.counts[s.run].add(s.id, s.n)
		}
		*s = kCount{id: id, n: 1, run: run}
	}
	if p != nil {
		p.at[n] = uint32(len(p.text))
	}
}

// flush moves the cached counts into the tables. The slots hold the last
// flows met, mostly a window of consecutive ids: taken from the slot of
// the smallest id on, they come in increasing order and append to the
// tables' tails.
func (c *flowCounter) flush() {
	first, low := 0, uint64(math.MaxUint64)
	for i := range c.recent {
		if s := &c.recent[i]; s.n != 0 && s.id < low {
			first, low = i, s.id
		}
	}
	for k := range c.recent {
		s := &c.recent[(first+k)%kCountSlots]
		if s.n != 0 {
			c.counts[s.run].add(s.id, s.n)
			*s = kCount{}
		}
	}
}

// countBytes is what the per-flow counts take (kept for the whole export).
func (le *lastEvents) countBytes() int64 {
	var n int64
	for _, c := range le.counts {
		if c != nil {
			n += int64(cap(c.tail))*int64(unsafe.Sizeof(idCount{})) + int64(len(c.extra))*48
		}
	}
	return n
}
