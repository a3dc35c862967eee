package mmapio

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Spilled merge: the iteration's way on when the blocks that overlap the
// merge point do not fit in the memory budget (segments.go) and a
// temporary file can be made (WithSpillDir; else windows, window.go).
//
// From the merge point on, every block is decoded once, by the workers, in
// plan order a little ahead of the merge, and its selected events from the
// merge point's cycle on are written in merge order to the temporary file:
// the block's run (spillrun.go). Only a run's checkpoints stay in memory.
// The merge goes on in segments handed to the workers as before, but cut
// by merge key (cycle, block rank, position: a segment may end inside a
// cycle) so that what the runs hold between its bounds, estimated from
// the checkpoints, fits its share of the budget. A segment's worker reads
// each run's part back (from the checkpoint at or before the segment's
// start to the one at or after its end), keeps the events within the
// bounds, and merges and renders them as it does decoded blocks. A run
// whose events the merge has passed is dropped, its bytes in the file
// freed (punched out where the file system can).
//
// So each block is decoded at most twice (by a segment before the switch,
// and to spill it), the file holds about what the blocks overlapping the
// merge point decode to, and the time is linear in what the blocks decode
// to: decoding, writing it and reading it back once.

// spiller is the state of a spilled merge (owned by the consumer; runs
// are handed to the workers and back).
type spiller struct {
	file *spillFile
	from uint64 // the merge point's cycle: no earlier event is spilled

	pend   []int32 // plan entries to spill (those in play at the switch, then the rest of the plan)
	pendAt int

	runs     []*run // spilled or being spilled, not yet passed by the merge, in plan order
	done     chan *run
	inflight int // spill jobs handed out and not collected
	// bigInflight: a block of over 16 MiB is spilling, alone. The zstd
	// decoder's state for such a block is not counted by the budget (up
	// to its size again): two at once took the process 86 MiB past it.
	bigInflight bool

	at     wkey // where the next segment starts
	ended  bool // every segment is built
	seq    uint64
	target int64 // a segment's bytes (parts, records, merge buffers)
	text   int64 // a dump segment's text reserve

	lows     []ckpt // where the next segment reads each ready run from (lowsAt)
	his      []ckpt // and up to where, for an end at hisTo (cutSpilled)
	hisTo    wkey
	retiring []*run          // passed by the merge, freed once the segments reading them are consumed
	idle     []*spillScratch // scratch of finished spill jobs, still reserved
	err      error           // ends the merge at errAt, once the events before it are out
	errAt    uint64
}

// spillDir is where a spilled merge's temporary file goes: the option's,
// else the system's temporary directory; "" never spills.
func (r *Reader) spillDir() string {
	if r.opts.spillDirSet {
		return r.opts.spillDir
	}
	return os.TempDir()
}

// startSpill switches the pipeline to a spilled merge from the head
// segment on, if a temporary file can be made; false leaves it as it was.
// As for windows, no segment is dispatched: the built ones are given back
// with every decoded block.
func (sp *segPipe) startSpill() bool {
	dir := sp.r.spillDir()
	if dir == "" {
		return false
	}
	file, err := createSpill(dir)
	if err != nil {
		return false // windows, slower but without a file
	}
	s := &spiller{file: file, from: sp.queue[0].lo, at: wkey{cycle: sp.queue[0].lo}, done: make(chan *run, spillJobs)}
	for _, seg := range sp.queue {
		s.pend = append(s.pend, seg.blocks...)
	}
	slices.Sort(s.pend)
	s.pend = slices.Compact(s.pend)
	for pi := sp.next; pi < len(sp.plan); pi++ {
		s.pend = append(s.pend, int32(pi))
	}
	if sp.lines != nil {
		s.text = textReserve(sp.textCap)
	}
	// A block that alone does not decode within the budget beside the
	// text cannot be spilled: windows, which decode it a share at a time.
	for _, pi := range s.pend {
		if sp.spillCost(sp.plan[pi])+s.text+2*ckptReserve > sp.budget {
			file.close()
			return false
		}
	}
	for _, seg := range sp.queue {
		sp.releaseSegment(seg)
	}
	sp.queue, sp.carried = nil, nil
	// Segments of a quarter of what the budget leaves beside two
	// segments' text, up to 32 MiB: a couple in flight leave room for the
	// spill jobs and the checkpoints. Not smaller: a segment reads at
	// least a checkpoint's step of every run it overlaps, and with
	// hundreds of runs (a writer's file of many units) a smaller share
	// cut every cycle into a segment per run.
	s.target = max(64<<10, min(32<<20, (sp.budget-2*s.text)/4))
	sp.spill = s
	dropIdle() // the blocks just given back: not reused, not counted
	return true
}

// spillJobs is how many blocks may be spilling at once.
const spillJobs = 8

// spillCost is what spilling block bi takes: decoding it (no merge
// buffers), the write buffer and the run's checkpoints.
func (sp *segPipe) spillCost(bi int32) int64 {
	b := sp.r.f.At(bi)
	c := int64(b.EventCount)*tracefile.RecSize + bufNeed(&b) + (1 << bufpool.Class(spillChunk)) + ckptReserve
	if bufNeed(&b) >= spillAloneBytes {
		c += int64(b.UncompressedSize) // see spillAloneBytes
	}
	return c
}

// nextSpilled returns the next segment of a spilled merge, merged (and
// rendered), or nil at the end.
func (sp *segPipe) nextSpilled() (*segment, error) {
	s := sp.spill
	if sp.prev != nil {
		sp.releaseSpilled(sp.prev)
		sp.prev = nil
	}
	for {
		if sp.stopped.Load() {
			return nil, ErrClosed
		}
		if !sp.fillSpilledLocked() {
			return nil, ErrClosed
		}
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
		}
		if len(sp.queue) > 0 && sp.queue[0].dispatched {
			seg := sp.queue[0]
			sp.queue = sp.queue[1:]
			select {
			case <-seg.done:
			case <-sp.stopc:
				return nil, ErrClosed
			}
			sp.prev = seg
			if seg.err == nil && s.ended && len(sp.queue) == 0 {
				seg.err = s.err // the last segment ends at the failed block
			}
			return seg, seg.err
		}
		if len(sp.queue) == 0 && s.ended {
			return nil, s.err
		}
		if s.inflight == 0 && len(sp.queue) > 0 && sp.dropIdle() {
			continue // the idle scratch's room may let the segment in
		}
		if s.inflight == 0 {
			// Nothing spilling, nothing merging, and the next segment does
			// not fit or cannot be built: the budget is too small for the
			// runs' checkpoints and one segment.
			return nil, fmt.Errorf("%s: the memory budget of %d bytes is too small for a merge through a temporary file (%d runs): raise it with --memory (mmapio.WithMemoryBudget)",
				sp.r.f.Path(), sp.budget, len(s.runs))
		}
		if !sp.collect(true) {
			return nil, ErrClosed
		}
	}
}

// collect takes back the runs the workers spilled (waiting for one when
// wait is set); false when the pipeline stopped.
func (sp *segPipe) collect(wait bool) bool {
	s := sp.spill
	for {
		select {
		case r := <-s.done:
			sp.collected(r)
			wait = false
			continue
		case <-sp.stopc:
			return false
		default:
		}
		if !wait {
			return true
		}
		select {
		case r := <-s.done:
			sp.collected(r)
			wait = false
		case <-sp.stopc:
			return false
		}
	}
}

// collected takes back run r from its worker, and its scratch.
func (sp *segPipe) collected(r *run) {
	s := sp.spill
	r.ready = true
	s.inflight--
	s.bigInflight = false // a big block spills alone
	if r.scratch != nil {
		s.idle = append(s.idle, r.scratch)
		r.scratch = nil
	}
}

// scratchFor returns a scratch for n records and a decode buffer of
// bufBytes: an idle one large enough (its reservation goes with it), else
// a new one; and what is reserved for it already.
func (sp *segPipe) scratchFor(n int, bufBytes int64) (*spillScratch, int64) {
	s := sp.spill
	best := -1
	for i, sc := range s.idle {
		if cap(sc.bd.Recs) >= n && sc.bufCap() >= bufBytes && (best < 0 || sc.bytes() < s.idle[best].bytes()) {
			best = i
		}
	}
	if best < 0 {
		return &spillScratch{bd: tracefile.Decoded{Recs: make([]tracefile.Rec, 0, n)}}, 0
	}
	sc := s.idle[best]
	s.idle = slices.Delete(s.idle, best, best+1)
	return sc, sc.bytes()
}

// dropIdle gives back the idle scratch: the budget needs the room.
func (sp *segPipe) dropIdle() bool {
	s := sp.spill
	if len(s.idle) == 0 {
		return false
	}
	var n int64
	for _, sc := range s.idle {
		n += sc.bytes()
	}
	s.idle = nil
	sp.mu.Lock()
	sp.inUse -= n
	sp.mu.Unlock()
	return true
}

// dispatchSpills hands the next plan entries to the workers to spill, as
// far as the budget allows, while the runs not yet reached by the merge
// hold less than a few segments.
func (sp *segPipe) dispatchSpills() {
	s := sp.spill
	var ahead int64
	for i := len(s.runs) - 1; i >= 0 && s.runs[i].start > s.at.cycle; i-- {
		ahead += s.runs[i].usize
	}
	for s.pendAt < len(s.pend) && s.inflight < spillJobs && ahead < 4*s.target && !s.bigInflight {
		pi := s.pend[s.pendAt]
		bi := sp.plan[pi]
		usize := int64(sp.r.f.UncompressedSize(bi))
		big := usize >= spillAloneBytes
		if big && s.inflight > 0 {
			return // spilled alone: see bigInflight
		}
		r := &run{pi: pi, block: bi, rank: sp.r.f.Rank(bi), start: max(sp.eMin(int(pi)), s.from), usize: usize, cost: sp.spillCost(bi)}
		if r.cost+s.text+ckptReserve > sp.budget {
			b := sp.r.f.At(bi)
			r.err = sp.r.f.Errorf(tracefile.BlockSection(int(bi)), tracefile.HeaderOff(&b),
				"decoding the block takes up to %d bytes, more than the memory budget of %d bytes: raise it with --memory (mmapio.WithMemoryBudget)", r.cost, sp.budget)
			r.cost, r.ready = 0, true
			s.pendAt++
			s.runs = append(s.runs, r)
			return
		}
		b := sp.r.f.At(bi)
		need := bufNeed(&b)
		scratch, held := sp.scratchFor(int(b.EventCount), need)
		r.scratch = scratch
		// The scratch's records and buffer, not the block's.
		r.cost += scratch.bytes() - int64(b.EventCount)*tracefile.RecSize - need
		sp.mu.Lock()
		fits := sp.inUse+r.cost-held+ckptReserve <= sp.budget
		if fits {
			sp.reserve(r.cost - held + ckptReserve) // the checkpoints stay reserved while the run lives
		}
		sp.mu.Unlock()
		if !fits {
			if held > 0 {
				s.idle = append(s.idle, scratch)
			}
			if sp.dropIdle() {
				continue // try again with the room the idle scratch held
			}
			return
		}
		s.pendAt++
		s.runs = append(s.runs, r)
		s.inflight++
		s.bigInflight = big
		ahead += usize
		select {
		case sp.spills <- r:
		case <-sp.stopc:
			return
		}
	}
}

// buildSpilled cuts the next segment of a spilled merge: from s.at to
// where the spilled runs reach (the next block not spilled yet starts
// there, or the first that failed), cut further so that it fits its
// share. nil when the runs do not reach past s.at yet, or at the end.
func (sp *segPipe) buildSpilled() *segment {
	s := sp.spill
	if s.ended {
		return nil
	}
	// The runs ready in plan order, and where they reach: every block
	// after them starts at end or later.
	end := maxKey
	k := 0
	for ; k < len(s.runs); k++ {
		r := s.runs[k]
		if !r.ready {
			end = wkey{cycle: r.start}
			break
		}
		if r.err != nil {
			if s.err == nil {
				s.err, s.errAt = r.err, r.start
			}
			end = wkey{cycle: r.start}
			break
		}
	}
	if k == len(s.runs) && s.pendAt < len(s.pend) {
		end = wkey{cycle: max(sp.eMin(int(s.pend[s.pendAt])), s.from)}
	}
	failed := s.err != nil && end == wkey{cycle: s.errAt}
	if end.compare(s.at) <= 0 {
		if failed {
			s.ended = true // the events before the failed block are out
		}
		return nil
	}
	live := s.runs[:k]
	if s.inflight > 0 && !failed && end != maxKey && sp.readyAhead(live) < s.target/2 {
		// While blocks are spilling, a segment much smaller than its
		// share waits for them. Cut as soon as a few runs were ready,
		// segments were a tenth of their share, and each read every run
		// it overlaps back: a read per run, hundreds of runs, whose
		// system calls cost more than their events.
		return nil
	}
	s.lows = sp.lowsAt(s.lows[:0], live, s.at)
	to := sp.cutSpilled(live, s.lows, end)
	seg := getSegment()
	seg.spilled = true
	seg.from, seg.to = s.at, to
	seg.lo, seg.last = s.at.cycle, true
	seg.cost = s.text
	s.seq++
	seg.seq = s.seq
	reuse := s.hisTo == to && len(s.his) == len(live) // the cut's last weighing was of this end
	for i, r := range live {
		lo := s.lows[i]
		if lo.idx == noLow || r.key(r.first, 0).compare(to) >= 0 {
			continue
		}
		var hi ckpt
		if reuse {
			hi = s.his[i]
		} else {
			hi = r.ceil(to)
		}
		if hi.off <= lo.off {
			continue
		}
		seg.reads = append(seg.reads, spillRead{r: r, off: lo.off, end: hi.off, idx: lo.idx, events: hi.idx - lo.idx})
		r.lastSeg = seg.seq
	}
	seg.cost += sp.readsCost(seg.reads)
	s.at = to
	if to == maxKey || failed && to == end {
		s.ended = true
	}
	// Runs the merge has passed are freed once this segment is consumed.
	s.runs = slices.DeleteFunc(s.runs, func(r *run) bool {
		if r.ready && r.err == nil && (r.n == 0 || r.lastKey().compare(to) < 0) {
			s.retiring = append(s.retiring, r)
			return true
		}
		return false
	})
	return seg
}

// readsCost is what reading reads back takes: the buffer (its size
// class), a record and the merge's buffers per event.
func (sp *segPipe) readsCost(reads []spillRead) int64 {
	var bytes, events int64
	for _, rd := range reads {
		bytes += int64(rd.end - rd.off)
		events += int64(rd.events)
	}
	c := events * (tracefile.RecSize + mergeBytesPerEvent)
	if bytes > 0 {
		c += 1 << bufpool.Class(int(bytes))
	}
	return c
}

// readyAhead is what the blocks of the ready runs of live that start
// after the next segment's cycle decode to: what spilled since (the runs
// are in plan order: the last ones), an estimate of a segment's reach
// that costs no search.
func (sp *segPipe) readyAhead(live []*run) int64 {
	s := sp.spill
	var n int64
	for i := len(live) - 1; i >= 0 && live[i].start > s.at.cycle; i-- {
		n += live[i].usize
	}
	return n
}

// noLow marks a run without events at or after the segment's start.
const noLow = math.MaxUint32

// lowsAt appends to dst, for each run of live, its checkpoint where a
// segment starting at at reads from (floor), or one with idx noLow when
// it has no event there: the cut weighs several ends for one start.
func (sp *segPipe) lowsAt(dst []ckpt, live []*run, at wkey) []ckpt {
	for _, r := range live {
		if r.n == 0 || r.lastKey().compare(at) < 0 {
			dst = append(dst, ckpt{idx: noLow})
			continue
		}
		dst = append(dst, r.floor(at))
	}
	return dst
}

// cutSpilled returns where the segment starting at s.at over runs live
// ends: end, or an earlier key where what the runs hold from s.at fits
// the segment's share (at least one checkpoint's step of one run: the
// merge moves on). lows are live's checkpoints at s.at (lowsAt).
func (sp *segPipe) cutSpilled(live []*run, lows []ckpt, end wkey) wkey {
	s := sp.spill
	at := s.at
	cost := func(to wkey) int64 {
		var bytes, events int64
		s.his, s.hisTo = s.his[:0], to
		for i, r := range live {
			lo := lows[i]
			if lo.idx == noLow || r.key(r.first, 0).compare(to) >= 0 {
				s.his = append(s.his, lo)
				continue
			}
			hi := r.ceil(to)
			s.his = append(s.his, hi)
			if hi.off > lo.off {
				bytes += int64(hi.off - lo.off)
				events += int64(hi.idx - lo.idx)
			}
		}
		return bytes + events*(tracefile.RecSize+mergeBytesPerEvent)
	}
	if cost(end) <= s.target {
		return end
	}
	// The largest cycle c after at's whose events before it fit.
	hi := end.cycle
	if end == maxKey {
		hi = 0
		for _, r := range live {
			if r.n > 0 {
				hi = max(hi, r.last)
			}
		}
		hi = min(hi, math.MaxUint64-1) + 1
	}
	span := hi - at.cycle // > 0: end is past at
	c := at.cycle + uint64(sort.Search(int(min(span, math.MaxInt32)), func(i int) bool {
		return cost(wkey{cycle: at.cycle + uint64(i) + 1}) > s.target
	}))
	if c > at.cycle {
		return wkey{cycle: c}
	}
	// The events of at's cycle alone are too many: cut inside it, at the
	// last checkpoint (of any run, in merge order) that keeps the segment
	// within its share, or else the first one after at.
	var cands []wkey
	for _, r := range live {
		if r.n == 0 {
			continue
		}
		if k := r.key(at.cycle, 0); k.compare(at) > 0 {
			cands = append(cands, k) // before its events of the cycle
		}
		for _, p := range r.ck {
			if k := r.key(p.cycle, p.idx); p.cycle == at.cycle && k.compare(at) > 0 {
				cands = append(cands, k)
			}
		}
		if r.last == at.cycle {
			cands = append(cands, r.key(at.cycle, r.n)) // just past its last event
		}
	}
	cands = append(cands, wkey{cycle: at.cycle + 1})
	slices.SortFunc(cands, wkey.compare)
	to := cands[0]
	for _, k := range cands[1:] {
		if cost(k) > s.target {
			break
		}
		to = k
	}
	return to
}

// processSpilled reads a spilled segment's parts back, merges (and
// renders) them.
func (sp *segPipe) processSpilled(seg *segment) {
	defer sp.guardSegment(seg)
	if err := sp.readSpilled(seg); err != nil {
		seg.err = err
		seg.bds = seg.bds[:0]
		seg.refs = seg.refs[:0]
		return
	}
	sp.merge(seg)
	if sp.lines != nil {
		sp.r.renderSegment(seg, sp.lines, sp.textCap)
	}
}

// releaseSpilled gives back a consumed spilled segment's memory and the
// runs no later segment reads.
func (sp *segPipe) releaseSpilled(seg *segment) {
	s := sp.spill
	sp.mu.Lock()
	if seg.dispatched {
		sp.inUse -= seg.cost
	}
	sp.mu.Unlock()
	s.retiring = slices.DeleteFunc(s.retiring, func(r *run) bool {
		if r.lastSeg > seg.seq {
			return false
		}
		sp.dropRun(r)
		return true
	})
	putSegment(seg)
}

// dropRun frees run r's bytes in the file and its checkpoints.
func (sp *segPipe) dropRun(r *run) {
	if r.size > 0 {
		sp.spill.file.free(r.off, r.size)
	}
	r.ck = nil
	sp.mu.Lock()
	sp.inUse -= ckptReserve
	sp.mu.Unlock()
}

// corrupt is the error of a run that does not read back as it was written.
func (s *spiller) corrupt(r *run, rd *spillRead, p int) error {
	return fmt.Errorf("block %d: its events read back from the temporary file %s at byte %d are not those written", r.block, s.file.name, r.off+int64(rd.off)+int64(p))
}

// spillAloneBytes: a block decoding to this much or more is spilled
// alone, and charged its size once more. What decoding such a block takes
// beyond its buffer and records (the zstd decoder's state, the garbage
// the collector has not reclaimed yet) is not counted otherwise: two
// 64 MiB blocks spilling at once took the process 86 MiB past its budget,
// one 16 MiB block at a time with a 64 MiB budget 17 MiB.
const spillAloneBytes = 4 << 20

// fillSpilledLocked collects finished spills and queues the next segments,
// holding the mapping: the plan's cycles are read from the mapped footer
// (false: Close has unmapped it). The lock is given back by a deferred
// call, so that a fault on a file that shrank, which panics through here
// to the caller's recovery, cannot leave it held and Close waiting.
func (sp *segPipe) fillSpilledLocked() bool {
	if !sp.r.f.RLock() {
		return false
	}
	defer sp.r.f.RUnlock()
	sp.collect(false)
	sp.dispatchSpills()
	for len(sp.queue) < sp.ahead {
		seg := sp.buildSpilled()
		if seg == nil {
			break
		}
		sp.queue = append(sp.queue, seg)
	}
	return true
}

// dropIdle forgets the idle memory the merge before the switch left in
// the process's free lists: the blocks' buffers and records, the
// segments. A spilled or windowed merge reuses little of it, and the
// budget does not count it while idle (up to 144 MiB: their caps).
func dropIdle() {
	bufpool.DropIdle()
	tracefile.DropIdle()
	segments.Drop()
}
