package mmapio

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/keysort"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// The merge runs in parallel, one cycle range at a time.
//
// A query's plan lists its blocks by (MinCycle, file offset). The consumer's
// goroutine cuts the plan into segments: segment s covers cycles
// [C_s, C_s+1), where C_s+1 is the first cycle of the first block not yet
// taken; it holds the blocks that start before C_s+1 and still have events
// at C_s or later (the new ones, plus those carried over from earlier
// segments: one per unit in files written one unit per block). Because every
// event of segment s comes before every event of segment s+1, segments can
// be merged independently and then concatenated.
//
// Worker goroutines decode each block once (the first segment that needs it
// does, or an idle worker ahead of it), pick the events of their segment
// from every block (binary search on the block's records, which are in
// cycle order), order them by (cycle, block rank by offset, position):
// concatenated when the blocks' parts do not overlap, else with a stable
// counting or radix sort on the cycle; and, for a dump, render their lines.
// The consumer takes segments in order and only walks the result.
//
// Memory: the segments built but not consumed hold about readAhead bytes of
// new blocks; a decoded block lives until the last segment using it is
// consumed. A block whose cycle range spans many segments (a rare unit's
// long block) stays decoded that long.
//
// The memory budget (WithMemoryBudget) bounds all of it: a segment is
// handed to the workers only once what it adds (its blocks not decoded yet,
// at their largest: buffer, records, copied arguments; its merge buffers
// and text) fits beside what the segments in flight reserved. A segment
// that does not fit waits for the consumer to release earlier ones; one
// that does not fit alone (the blocks overlapping its cycles are too many
// or too big: many units with large blocks, a crafted file) switches the
// rest of the iteration to windows (window.go), which decode blocks again
// for every window instead of holding them.

// blockState is the decode-once state of a plan entry while built segments
// use it. Only those entries have one (segPipe.states), so a query's memory
// does not grow with the blocks of its plan: a full dump of a 6 GB trace
// plans 470,000 blocks.
type blockState struct {
	once     sync.Once
	refs     int32              // segments using the block and not consumed (under segPipe.mu)
	released bool               // the last of them was consumed (under segPipe.mu)
	bd       *tracefile.Decoded // under segPipe.mu
	cost     int64              // most bytes decoding it takes (blockCost)
	reserved bool               // cost is counted in segPipe.inUse (under segPipe.mu)
	started  bool               // its decode began (under segPipe.mu)
	finished bool               // its decode ended (under segPipe.mu)
}

// segment is one cycle range of a plan.
type segment struct {
	blocks []int32 // plan indices
	lo, hi uint64  // cycles [lo, hi); last: no upper bound
	last   bool

	bds      []*tracefile.Decoded // by slot, parallel to blocks
	wins     []*winBlock          // a window's blocks, parallel to bds (window.go)
	refs     []uint64             // events in merge order: slot<<32 | index in bds[slot].Recs
	text     []byte               // dump: the lines of refs[base:rendered]
	base     int
	rendered int
	err      error
	done     chan struct{}

	cost       int64 // merge buffers and text, reserved while dispatched
	dispatched bool  // handed to the workers (its cost and blocks reserved)
	window     bool  // a window's segment (window.go): its bds are its own

	// A spilled merge's segment (spill.go): its bounds in merge order, the
	// runs' parts it reads back, and what they are read into.
	spilled  bool
	from, to wkey
	seq      uint64
	reads    []spillRead
	rbuf     *[]byte
	parts    []tracefile.Decoded // bds point here
	recs     []tracefile.Rec

	keys, tk, tr []uint64 // scratch
	counts       []uint32
}

// segments recycles segments with their buffers (text, refs, sort
// scratch), up to 64 MiB. A dump has a handful in flight.
var segments = bufpool.FreeList[segment]{Limit: 16, Budget: 64 << 20, Cost: func(s *segment) int {
	return cap(s.text) + 8*(cap(s.refs)+cap(s.keys)+cap(s.tk)+cap(s.tr)) + 4*cap(s.counts) +
		int(tracefile.RecSize)*cap(s.recs) + int(unsafe.Sizeof(tracefile.Decoded{}))*cap(s.parts)
}}

func getSegment() *segment {
	s := segments.Get()
	s.done = make(chan struct{})
	return s
}

func putSegment(s *segment) {
	if s.rbuf != nil {
		bufpool.Put(s.rbuf)
		if bufpool.IsBig(cap(*s.rbuf)) {
			bufpool.DropBig() // not kept idle beyond the budget (spill.go)
		}
	}
	clear(s.parts[:cap(s.parts)]) // their Data pointed into rbuf
	clear(s.reads[:cap(s.reads)]) // and these at runs
	*s = segment{blocks: s.blocks[:0], bds: s.bds[:0], wins: s.wins[:0], refs: s.refs[:0], text: s.text[:0],
		keys: s.keys[:0], tk: s.tk[:0], tr: s.tr[:0], counts: s.counts[:0],
		reads: s.reads[:0], parts: s.parts[:0], recs: s.recs[:0]}
	segments.Put(s)
}

// segPipe runs the segments of one query.
type segPipe struct {
	r        *Reader
	plan     []int32
	sel      *tracefile.Selector
	lines    *ctext.Lines          // renders each segment's lines (a dump); nil: an iteration
	states   map[int32]*blockState // plan entries of built, unconsumed segments (under mu)
	segBytes int
	ahead    int
	budget   int64 // WithMemoryBudget
	textCap  int   // bytes of dump text a segment renders at a time
	inUse    int64 // bytes reserved for data in flight (under mu)
	win      *windower
	spill    *spiller                     // a spilled merge (spill.go)
	spills   chan *run                    // runs for the workers to spill
	given    map[int32]*tracefile.Decoded // blocks decoded by the caller, by block index (under mu; IterDecoded)

	// Builder state, owned by the consumer's goroutine.
	next     int     // first plan index in no segment yet
	carried  []int32 // plan indices continuing into the next segment
	start    uint64  // first cycle of the next segment
	builtAny bool
	queue    []*segment
	prev     *segment // consumed, released at the next call

	mu       sync.Mutex // guards releasing block data (consumer vs stop)
	jobs     chan *segment
	decodes  chan int32 // blocks of built segments that an idle worker may decode early
	stopc    chan struct{}
	stopped  atomic.Bool
	stopOnce sync.Once
	wg       sync.WaitGroup
}

func (r *Reader) startSegments(plan []int32, sel *tracefile.Selector, lines *ctext.Lines) (*segPipe, error) {
	workers := r.opts.decoders
	ahead := workers + 1
	readAhead := r.opts.readAhead
	if readAhead == 0 {
		readAhead = iterReadAhead
		if lines != nil {
			readAhead = dumpReadAhead
		}
		// A short query reads less far ahead: its run is too short to
		// repay the page faults of the memory a deep pipeline touches.
		// Summing stops where it can no longer lower the read-ahead: each
		// term is a footer lookup, and a full scan plans every block.
		var total int
		for _, bi := range plan {
			if total += int(r.f.UncompressedSize(bi)); total/32 >= readAhead {
				break
			}
		}
		readAhead = min(readAhead, max(256<<10, total/32))
	}
	budget := r.opts.memBudget
	sp := &segPipe{r: r, plan: plan, sel: sel, lines: lines, states: make(map[int32]*blockState),
		segBytes: max(readAhead/ahead, 64<<10), ahead: ahead, budget: budget,
		textCap: int(min(segmentTextCap, max(64<<10, budget/16))),
		jobs:    make(chan *segment, ahead+1), decodes: make(chan int32, 256), spills: make(chan *run, spillJobs),
		stopc: make(chan struct{})}
	// A small budget takes smaller segments, so that several fit in it.
	sp.segBytes = max(64<<10, min(sp.segBytes, int(budget/16)))
	if r.opts.segmentBytes > 0 {
		sp.segBytes = r.opts.segmentBytes
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if r.running == nil {
		r.running = make(map[*segPipe]struct{})
	}
	r.running[sp] = struct{}{}
	bufpool.Begin() // ended by stop
	// Counted before Close can find sp: its stop must wait for them (an
	// Add after that Wait began would be a misuse of the WaitGroup).
	sp.wg.Add(workers)
	r.mu.Unlock()
	if len(plan) > 64 {
		// A scan over many blocks reads the file front to back.
		first, last := r.f.At(plan[0]), r.f.At(plan[len(plan)-1])
		if first.DataOffset < last.DataOffset {
			r.f.AdviseSequential(tracefile.HeaderOff(&first), tracefile.BlockEnd(&last)-tracefile.HeaderOff(&first))
		}
	}
	for range workers {
		go sp.work()
	}
	return sp, nil
}

// eMin is the smallest cycle plan entry i can contribute.
func (sp *segPipe) eMin(i int) uint64 {
	return max(sp.r.f.MinCycle(sp.plan[i]), sp.sel.Start)
}

// build cuts the next segment off the plan; nil when the plan is used up.
func (sp *segPipe) build() *segment {
	if sp.next >= len(sp.plan) && len(sp.carried) == 0 {
		return nil
	}
	// The cut reads the footer's index, which Close unmaps: the consumer's
	// goroutine is not one of the workers Close waits for.
	if !sp.r.f.RLock() {
		return nil
	}
	defer sp.r.f.RUnlock()
	seg := getSegment()
	seg.blocks = append(seg.blocks, sp.carried...)
	sp.carried = sp.carried[:0]
	if sp.builtAny {
		seg.lo = sp.start
	} else {
		seg.lo = sp.eMin(0)
	}
	j, bytes := sp.next, 0
	for j < len(sp.plan) && (j == sp.next || bytes < sp.segBytes) {
		seg.blocks = append(seg.blocks, int32(j))
		bytes += int(sp.r.f.UncompressedSize(sp.plan[j]))
		j++
	}
	// The next segment must start at a later cycle than this one (the
	// first one too: a first segment of one block followed by blocks that
	// start at its cycle was empty, and decoded its block for nothing).
	for j < len(sp.plan) && sp.eMin(j) <= seg.lo {
		seg.blocks = append(seg.blocks, int32(j))
		j++
	}
	sp.next = j
	if j < len(sp.plan) {
		end := sp.eMin(j)
		seg.hi = end
		for _, pi := range seg.blocks {
			if sp.r.f.MaxCycle(sp.plan[pi]) >= end {
				sp.carried = append(sp.carried, pi)
			}
		}
		sp.start = end
	} else {
		seg.last = true
	}
	sp.builtAny = true
	if sp.lines != nil {
		seg.cost = textReserve(sp.textCap)
	}
	sp.mu.Lock()
	for _, pi := range seg.blocks {
		st := sp.states[pi]
		if st == nil {
			st = &blockState{cost: sp.blockCost(sp.plan[pi])}
			sp.states[pi] = st
		}
		st.refs++
	}
	sp.mu.Unlock()
	return seg
}

// Memory accounting (upper bounds, so that what is reserved covers what is
// allocated): a merge holds refs, keys and two sort scratch arrays (8 bytes
// each) and counting-sort counts (at most 8 bytes) per event; a rendered
// line may run past the text cap by one line (64 KiB of arguments and
// their text).
const (
	mergeBytesPerEvent = 40
	maxLineSlack       = 256 << 10
)

// textReserve bounds a segment's text buffer rendered up to limit bytes:
// the last line may run past the limit, and append may double the buffer.
func textReserve(limit int) int64 { return 2 * (int64(limit) + maxLineSlack) }

// blockCost is the most memory decoding block bi takes: its buffer (a
// compressed block; a raw one is read in the mapping), a record per event
// (as many as the header declares: a block holding more is an error) and,
// for a filtering query, the selected arguments copied out of the buffer.
// It also covers the block's events in the merge buffers of the segments
// in flight: every event is in one segment, so those buffers hold at most
// the events of the blocks in flight.
func (sp *segPipe) blockCost(bi int32) int64 { return sp.decodeCost(bi, mergeBytesPerEvent) }

// decodeCost is blockCost with perEvent more bytes per event than a record.
func (sp *segPipe) decodeCost(bi int32, perEvent int64) int64 {
	b := sp.r.f.At(bi)
	u := int64(b.UncompressedSize)
	c := int64(b.EventCount) * (int64(unsafe.Sizeof(tracefile.Rec{})) + perEvent)
	if !tracefile.IsRaw(&b) && u > 0 {
		c += 1 << bufpool.Class(int(u))
		if !sp.sel.All {
			c += u
		}
	}
	return c
}

// reserve counts n more bytes in flight (sp.mu held) and records the peak.
func (sp *segPipe) reserve(n int64) {
	sp.inUse += n
	for {
		p := sp.r.memPeak.Load()
		if sp.inUse <= p || sp.r.memPeak.CompareAndSwap(p, sp.inUse) {
			return
		}
	}
}

// admit reserves what seg adds to the memory in flight and marks it
// dispatched; false when that does not fit in the budget.
func (sp *segPipe) admit(seg *segment) bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.stopped.Load() { // Close stopped the pipe: its states are gone
		return false
	}
	need := seg.cost
	for _, pi := range seg.blocks {
		if st := sp.states[pi]; !st.reserved {
			need += st.cost
		}
	}
	if sp.inUse+need > sp.budget {
		return false
	}
	for _, pi := range seg.blocks {
		sp.states[pi].reserved = true
	}
	sp.reserve(need)
	seg.dispatched = true
	return true
}

// nextSegment returns the next segment in order, merged (and rendered), or
// nil at the end. The previous segment is released. With an error, the
// segment (when not nil) holds the events before the failure: use them,
// then stop.
func (sp *segPipe) nextSegment() (*segment, error) {
	if sp.spill != nil {
		return sp.nextSpilled()
	}
	if sp.win != nil {
		return sp.nextWindow()
	}
	for len(sp.queue) < sp.ahead {
		seg := sp.build()
		if seg == nil {
			break
		}
		sp.queue = append(sp.queue, seg)
	}
	// Release the previous segment only now: the segments after it are
	// built, so a block it shares with them still has references.
	if sp.prev != nil {
		sp.releaseSegment(sp.prev)
		sp.prev = nil
	}
	// Hand segments to the workers in order, as far as the budget allows.
	for _, seg := range sp.queue {
		if seg.dispatched {
			continue
		}
		if !sp.admit(seg) {
			break
		}
		select {
		case sp.jobs <- seg:
		case <-sp.stopc:
			return nil, ErrClosed
		}
		// Offer the segment's blocks to idle workers: a seek whose blocks
		// all fall in one segment then decodes them in parallel.
		for _, pi := range seg.blocks {
			select {
			case sp.decodes <- pi:
			default:
			}
		}
	}
	if len(sp.queue) == 0 {
		if sp.stopped.Load() {
			return nil, ErrClosed
		}
		return nil, nil
	}
	seg := sp.queue[0]
	if !seg.dispatched && sp.stopped.Load() {
		return nil, ErrClosed
	}
	if !seg.dispatched {
		// Nothing is in flight and the segment still does not fit: its
		// overlapping blocks are too many or too big to hold at once.
		if sp.startSpill() {
			return sp.nextSpilled()
		}
		sp.startWindows()
		return sp.nextWindow()
	}
	sp.queue = sp.queue[1:]
	select {
	case <-seg.done:
	case <-sp.stopc:
		return nil, ErrClosed
	}
	sp.prev = seg
	return seg, seg.err
}

func (sp *segPipe) releaseSegment(seg *segment) {
	sp.mu.Lock()
	if seg.dispatched {
		sp.inUse -= seg.cost
	}
	for _, pi := range seg.blocks {
		st := sp.states[pi]
		if st == nil {
			continue // stop released everything
		}
		if st.refs--; st.refs == 0 {
			sp.dropState(pi, st)
		}
	}
	sp.mu.Unlock()
	putSegment(seg)
}

// dropState forgets plan entry pi, whose last segment was consumed, and
// gives its data back. sp.mu is held.
func (sp *segPipe) dropState(pi int32, st *blockState) {
	st.released = true
	if st.bd != nil {
		tracefile.Release(st.bd)
		st.bd = nil
	}
	// A decode in progress gives its data and reservation back when it
	// finishes (decode).
	if st.reserved && (!st.started || st.finished) {
		sp.inUse -= st.cost
	}
	delete(sp.states, pi)
}

func (sp *segPipe) work() {
	defer sp.wg.Done()
	panicOnFault() // for this goroutine's life: File.Decode and process recover faults
	for {
		select {
		case seg := <-sp.jobs:
			if !sp.stopped.Load() {
				sp.process(seg)
			}
			close(seg.done)
			continue
		case <-sp.stopc:
			return
		default:
		}
		select {
		case seg := <-sp.jobs:
			if !sp.stopped.Load() {
				sp.process(seg)
			}
			close(seg.done)
		case r := <-sp.spills:
			if !sp.stopped.Load() {
				sp.spillRun(r)
			}
			sp.spill.done <- r // buffered for every run handed out
		case pi := <-sp.decodes:
			if !sp.stopped.Load() {
				sp.decode(pi)
			}
		case <-sp.stopc:
			return
		}
	}
}

// decode decodes plan entry pi unless it has been already, and returns its
// state. An early decode (an idle worker's) may come after the block's last
// segment was consumed: the state is then gone (nil) or released, and the
// data go straight back.
func (sp *segPipe) decode(pi int32) *blockState {
	sp.mu.Lock()
	st := sp.states[pi]
	if st != nil && !st.reserved {
		st = nil // an early decode of a block no dispatched segment uses yet
	}
	sp.mu.Unlock()
	if st == nil {
		return nil
	}
	st.once.Do(func() {
		sp.mu.Lock()
		if st.released {
			sp.mu.Unlock()
			return
		}
		st.started = true
		bd := sp.given[sp.plan[pi]] // decoded by the caller already (IterDecoded)
		delete(sp.given, sp.plan[pi])
		sp.mu.Unlock()
		if bd == nil {
			bd = tracefile.NewDecoded()
			bd.Err = sp.r.f.Decode(sp.plan[pi], sp.sel, bd)
		}
		sp.mu.Lock()
		st.finished = true
		if st.released {
			tracefile.Release(bd)
			sp.inUse -= st.cost
		} else {
			st.bd = bd
		}
		sp.mu.Unlock()
	})
	return st
}

// decoded returns plan entry pi decoded, for a segment that uses it (so
// the consumer cannot have released it).
func (sp *segPipe) decoded(pi int32) *tracefile.Decoded {
	st := sp.decode(pi)
	if st == nil { // cannot happen: the segment holds a reference
		return &tracefile.Decoded{Block: sp.plan[pi], Err: ErrClosed}
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if st.bd == nil { // cannot happen either: released only once unused
		return &tracefile.Decoded{Block: sp.plan[pi], Err: ErrClosed}
	}
	return st.bd
}

// process merges one segment (and renders it for a dump). A block that
// does not decode ends the iteration, but not before the events that come
// before it in cycle order: the segment is cut at the bad block's first
// cycle and carries the error.
func (sp *segPipe) process(seg *segment) {
	if seg.spilled {
		sp.processSpilled(seg)
		return
	}
	defer sp.guardSegment(seg)
	cut := uint64(math.MaxUint64)
	for _, pi := range seg.blocks {
		if sp.stopped.Load() {
			seg.err = ErrClosed
			return
		}
		bd := sp.decoded(pi)
		if bd.Err != nil {
			if e := sp.eMin(int(pi)); seg.err == nil || e < cut {
				seg.err, cut = bd.Err, e
			}
			continue
		}
		seg.bds = append(seg.bds, bd)
	}
	if seg.err != nil && (seg.last || cut < seg.hi) {
		seg.hi, seg.last = cut, false
	}
	sp.merge(seg)
	if sp.lines != nil {
		sp.r.renderSegment(seg, sp.lines, sp.textCap)
	}
}

// merge puts the segment's events in order into seg.refs: by cycle, then
// block rank by file offset, then position in the block.
//
// When the blocks' parts in the segment do not overlap in cycles (one
// stream written in cycle order, one unit's blocks, the seams of a
// window), the order is a concatenation and refs are written directly.
// Otherwise blocks are gathered in rank order and each block's records are
// in cycle order, so a stable sort on the cycle alone gives the order.
func (sp *segPipe) merge(seg *segment) {
	type part struct {
		first, last uint64 // cycles of the first and last selected record
		rank        uint32
		slot        uint32
		a, b        int
	}
	parts := make([]part, 0, len(seg.bds))
	total := 0
	for slot, bd := range seg.bds {
		recs := bd.Recs
		a := sort.Search(len(recs), func(i int) bool { return recs[i].Cycle >= seg.lo })
		b := len(recs)
		if !seg.last {
			b = a + sort.Search(len(recs)-a, func(i int) bool { return recs[a+i].Cycle >= seg.hi })
		}
		if a < b {
			parts = append(parts, part{recs[a].Cycle, recs[b-1].Cycle, sp.r.f.Rank(bd.Block), uint32(slot), a, b})
			total += b - a
		}
	}
	slices.SortFunc(parts, func(x, y part) int {
		if c := cmp.Compare(x.first, y.first); c != 0 {
			return c
		}
		return cmp.Compare(x.rank, y.rank)
	})
	disjoint := true
	for i := 1; i < len(parts); i++ {
		p, q := &parts[i-1], &parts[i]
		if p.last > q.first || p.last == q.first && p.rank > q.rank {
			disjoint = false
			break
		}
	}
	refs := slices.Grow(seg.refs[:0], total)
	if disjoint {
		for _, p := range parts {
			ref := uint64(p.slot) << 32
			for i := p.a; i < p.b; i++ {
				refs = append(refs, ref|uint64(i))
			}
		}
		seg.refs = refs
		return
	}
	slices.SortFunc(parts, func(x, y part) int { return cmp.Compare(x.rank, y.rank) })
	keys := slices.Grow(seg.keys[:0], total)
	var span uint64
	for _, p := range parts {
		recs := seg.bds[p.slot].Recs
		ref := uint64(p.slot) << 32
		for i := p.a; i < p.b; i++ {
			c := recs[i].Cycle - seg.lo
			span = max(span, c)
			keys = append(keys, c)
			refs = append(refs, ref|uint64(i))
		}
	}
	if m := len(keys); m > 1 && !keysort.Ascending(keys) {
		tk := slices.Grow(seg.tk[:0], m)[:m]
		tr := slices.Grow(seg.tr[:0], m)[:m]
		var k2, r2 []uint64
		if span < uint64(2*m) && span < 1<<22 {
			seg.counts = slices.Grow(seg.counts[:0], int(span)+1)[:span+1]
			k2, r2 = keysort.Counting(keys, refs, tk, tr, seg.counts)
		} else {
			k2, r2 = keysort.Radix(keys, refs, tk, tr, keysort.Bits(span))
		}
		if &k2[0] == &tk[0] {
			tk, tr = keys, refs // the result is in the scratch: swap roles
		}
		seg.tk, seg.tr = tk[:0], tr[:0]
		keys, refs = k2, r2
	}
	seg.keys, seg.refs = keys, refs
}

// stop ends the pipeline: workers finish what they do, every decoded block
// goes back to the pool. Safe to call more than once and from Reader.Close.
func (sp *segPipe) stop() {
	sp.stopOnce.Do(func() {
		sp.stopped.Store(true)
		close(sp.stopc)
		sp.wg.Wait()
		sp.mu.Lock()
		for pi, st := range sp.states {
			sp.dropState(pi, st)
		}
		for _, bd := range sp.given {
			tracefile.Release(bd)
		}
		sp.given = nil
		sp.mu.Unlock()
		if sp.spill != nil {
			sp.spill.file.close()
		}
		bufpool.End()
		sp.r.mu.Lock()
		delete(sp.r.running, sp)
		sp.r.mu.Unlock()
	})
}
