package rewrite

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/internal/zrec"
	"github.com/chronon-sim/chronon-go/schema"
)

// The merge's block pipeline. Rank files of a parallel simulation all
// number their units 1..N, so every file after the first has each block
// rewritten: decoded, its event records renumbered and re-encoded. That
// is the whole cost of a merge, so it runs on GOMAXPROCS workers:
//
//	feeder -> work -> workers (decode, renumber, encode) -> job.done
//	feeder -> order (every block, in output order) -> writer
//
// The feeder walks the files' blocks in output order and puts every one on
// order; a block to rewrite also gets a job, taken from a fixed set (free),
// and is put on work. The writer (WriteMerged's goroutine) takes order in
// turn: it copies a kept block from the mapping, or waits for its job,
// writes its payload and gives the job back. The fixed set of jobs, each
// keeping its buffers, bounds the memory in flight and makes the steady
// state allocate nothing per block; a byte budget bounds it further when
// blocks are large.
//
// Stopping: the writer closes quit when it stops early (an error); the
// feeder then stops and closes work, the workers drain it, and stop waits
// for all of them, so no goroutine outlives WriteMerged.

// mergeInflight is the most decoded bytes the jobs in flight may hold
// (one block is always allowed, whatever its size).
const mergeInflight = 32 << 20

// mergeBigBuf: a job drops buffers above this size after use, so one
// large block does not stay resident for the rest of the merge.
const mergeBigBuf = 4 << 20

// mergeItem is one block of the output, in order: copied (job nil) or
// rewritten by job.
type mergeItem struct {
	r   *tracefile.File
	p   *mergePlan
	b   *tracefile.Block
	job *mergeJob
	err error // the file's block table could not be read (b nil)
}

// mergeJob is a block's trip through a worker. Its buffers are kept from
// one block to the next.
type mergeJob struct {
	r *tracefile.File
	p *mergePlan
	b *tracefile.Block

	data    []byte   // the payload to write (raw, buf's bytes or enc)
	buf     *[]byte  // decoded block from the reader's buffer pool, if any
	raw     []byte   // copy of a raw input block, renumbered
	enc     []byte   // encoder output
	units   []uint16 // the block's units after renumbering (nil: not listed)
	seen    [1 << 16 / 64]uint64
	usize   int               // counted in the pipeline's bytes in flight
	keep    bool              // the block is copied as it is: only checked
	noCheck bool              // ... and not even checked (MergeOptions.NoVerify)
	bd      tracefile.Decoded // check's scratch, kept from one block to the next
	err     error
	done    chan struct{} // one token per completed job: never blocks
}

// mergePipe runs the feeder and the workers of one WriteMerged.
type mergePipe struct {
	order    chan mergeItem
	work     chan *mergeJob
	free     chan *mergeJob
	quit     chan struct{}
	released chan struct{} // a job's bytes were given back (capacity 1)
	inflight atomic.Int64
	wg       sync.WaitGroup
	o        MergeOptions
	zs       *zstd.Encoder // variable-size blocks (shared, safe for concurrent use)
}

// startMergePipe starts the pipeline over the readers' blocks.
func startMergePipe(readers []*tracefile.File, plans []*mergePlan, o MergeOptions) (*mergePipe, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	if o.Workers > 0 {
		workers = min(o.Workers, 256) // each holds a job's buffers and a goroutine
	}
	jobs := 2*workers + 2 // every worker busy, plus finished blocks waiting for the writer
	mp := &mergePipe{
		order:    make(chan mergeItem, 4*jobs),
		work:     make(chan *mergeJob, jobs),
		free:     make(chan *mergeJob, jobs),
		quit:     make(chan struct{}),
		released: make(chan struct{}, 1),
		o:        o,
	}
	if !o.RawRewrites {
		zs, err := mergeEncoder(o.Level)
		if err != nil {
			return nil, err
		}
		mp.zs = zs
	}
	for range jobs {
		mp.free <- &mergeJob{done: make(chan struct{}, 1)}
	}
	encs := make([]*zrec.Encoder, workers)
	for i := range encs {
		// Literals Huffman coded whenever that is smaller (no
		// WithLiteralMinGain): rewritten blocks come out as small as with
		// klauspost's SpeedFastest; raw literals saved no measurable time
		// here (the match finder and the sequences dominate).
		e, err := zrec.NewEncoder()
		if err != nil {
			return nil, err
		}
		encs[i] = e
	}
	mp.wg.Add(1 + workers)
	go mp.feed(readers, plans)
	for _, e := range encs {
		go mp.worker(e)
	}
	return mp, nil
}

// stop ends the pipeline early (if it has not ended) and waits for every
// goroutine.
func (mp *mergePipe) stop() {
	close(mp.quit)
	mp.wg.Wait()
	// Blocks the writer did not take (it stopped on an error) give their
	// decoded buffers back to the reader's pool; the workers are done.
	for it := range mp.order {
		if it.job != nil {
			it.job.releaseBuf()
		}
	}
}

// feed puts every block on order, and the ones to rewrite on work.
func (mp *mergePipe) feed(readers []*tracefile.File, plans []*mergePlan) {
	defer mp.wg.Done()
	defer close(mp.work)
	defer close(mp.order)
	for i, r := range readers {
		blocks, err := mergeBlocks(r) // decoded by mergeSchema: no read of the mapping
		if err != nil {
			// The index is gone (the file shrank): the writer reports it.
			mp.send(mergeItem{r: r, err: err})
			return
		}
		p := plans[i]
		for bi := range blocks {
			b := &blocks[bi]
			it := mergeItem{r: r, p: p, b: b}
			{
				// Every block gets a job: a kept one is only checked (the
				// writer then copies its bytes as they are), so the output
				// holds no block a reader would refuse.
				j := mp.take(int64(b.UncompressedSize))
				if j == nil {
					return
				}
				j.r, j.p, j.b, j.err, j.usize = r, p, b, nil, int(b.UncompressedSize)
				j.keep = p.keeps(b)
				j.noCheck = j.keep && mp.o.NoVerify && b.Units != nil
				it.job = j
				select {
				case mp.work <- j:
				case <-mp.quit:
					return
				}
			}
			if !mp.send(it) {
				return
			}
		}
	}
}

func (mp *mergePipe) send(it mergeItem) bool {
	select {
	case mp.order <- it:
		return true
	case <-mp.quit:
		return false
	}
}

// take returns a free job once the byte budget allows a block of n
// decoded bytes, or nil when the pipeline is stopped.
func (mp *mergePipe) take(n int64) *mergeJob {
	for mp.inflight.Load() > 0 && mp.inflight.Load()+n > mergeInflight {
		select {
		case <-mp.released:
		case <-mp.quit:
			return nil
		}
	}
	select {
	case j := <-mp.free:
		mp.inflight.Add(n)
		return j
	case <-mp.quit:
		return nil
	}
}

// give returns a written job to the free set.
func (mp *mergePipe) give(j *mergeJob) {
	j.releaseBuf()
	if cap(j.raw) > mergeBigBuf {
		j.raw = nil
	}
	if cap(j.enc) > mergeBigBuf {
		j.enc = nil
	}
	j.r, j.p, j.b, j.data = nil, nil, nil, nil
	mp.inflight.Add(-int64(j.usize))
	mp.free <- j // never blocks: free holds every job
	select {
	case mp.released <- struct{}{}:
	default:
	}
}

func (j *mergeJob) releaseBuf() {
	if j.buf != nil {
		bufpool.Put(j.buf)
		j.buf = nil
	}
}

func (mp *mergePipe) worker(rec *zrec.Encoder) {
	defer mp.wg.Done()
	for j := range mp.work {
		if j.noCheck {
			j.err = nil
		} else if j.keep {
			j.err = j.check()
		} else {
			j.err = mp.rewrite(j, rec)
		}
		j.done <- struct{}{}
	}
}

// check decodes and verifies job j's block, which is copied as it is: as a
// dump would (the frame decodes to the declared size, whole events fill
// it, their count, cycles and units are what the footer says), so a
// corrupt block or a lying unit set fails the merge instead of being
// copied into an output that readers refuse.
func (j *mergeJob) check() (err error) {
	r, b := j.r, j.b
	defer r.Guard(&err, tracefile.PanicOnFault())
	data, buf, err := r.BlockBytes(b)
	j.buf = buf // given back to the pool with the job
	if err != nil {
		return err
	}
	if err := r.ScanEvents(b, data, nil, &j.bd); err != nil {
		return err
	}
	if b.Units == nil { // without a unit set, an id the file does not name may be in it
		le := binary.LittleEndian
		for q := 0; q+schema.EventHeaderSize <= len(data); q += schema.EventHeaderSize + int(le.Uint16(data[q:])) {
			if err := j.unnamedClash(q, le.Uint16(data[q+18:])); err != nil {
				return err
			}
		}
	}
	return nil
}

// unnamedClash refuses an event whose unit id its file does not name (a
// file without unit sets) when another file names a unit with that id in
// the merged file: the event would print as that unit there, unnamed in the
// files read together.
func (j *mergeJob) unnamedClash(q int, id uint16) error {
	p := j.p
	if !p.taken[id] || p.named[id] {
		return nil
	}
	return j.r.EventErr(j.b, q, "event of unit id %d, which the file's schema and unit sets do not name, "+
		"while another input's unit has that id in the merged file; merge cannot keep them apart (read the files together instead)", id)
}

// rewrite decodes and verifies job j's block, renumbers its events' unit
// and format ids by the plan and re-encodes it: with the record-aware
// encoder when every event has a fixed-size format (it finds each event's
// match in the previous event of its format, twice as fast as a generic
// encoder and as small on such data), else with klauspost's encoder,
// which also finds text repeated anywhere in the block. A raw input block
// stays raw, as does a block zstd does not make smaller.
func (mp *mergePipe) rewrite(j *mergeJob, rec *zrec.Encoder) (err error) {
	r, b := j.r, j.b
	defer r.Guard(&err, tracefile.PanicOnFault())
	data, buf, err := r.BlockBytes(b)
	if err != nil {
		return err
	}
	if buf != nil {
		j.buf = buf // decoded into our own buffer: renumbered in place
	} else {
		// A raw block (or an empty one) is the mapping itself: copy it.
		j.raw = append(j.raw[:0], data...)
		data = j.raw
	}
	fixed, err := j.renumber(data)
	if err != nil {
		return err
	}
	j.data = data
	if tracefile.IsRaw(b) || mp.o.RawRewrites || len(data) == 0 {
		return nil
	}
	if need := zrec.MaxEncodedSize(len(data)); cap(j.enc) < need {
		j.enc = make([]byte, 0, need)
	}
	var z []byte
	if fixed {
		z = rec.EncodeAll(data, j.enc[:0])
	} else {
		z = mp.zs.EncodeAll(data, j.enc[:0])
	}
	if &z[:1][0] == &j.enc[:1][0] {
		j.enc = z[:0] // keep the (possibly grown) buffer
	}
	if len(z) < len(data) {
		j.data = z
	}
	return nil
}

// renumber verifies the block's events (the checks of ScanEvents: whole
// events, cycles within the block's range, units the footer lists, the
// declared count) while it rewrites their unit and format ids in place,
// and category bits (catmap) in place,
// collects the block's new unit set and reports whether every event has a
// fixed-size format. One pass over the data instead of two.
func (j *mergeJob) renumber(data []byte) (fixed bool, err error) {
	r, p, b := j.r, j.p, j.b
	le := binary.LittleEndian
	n := len(data)
	lo, hi := b.MinCycle, b.MaxCycle
	uc := tracefile.NewUnitCheck(b.Units)
	var count uint32
	fixed = true
	clear(j.seen[:])
	last := -1 // the last unit id set in seen: most blocks hold one unit
	catsMoved, symsMoved := !p.cats.Identity(), p.syms != nil
	for q := 0; q < n; {
		if n-q < schema.EventHeaderSize {
			return false, r.EventErr(b, q, "truncated event: %d bytes left, an event needs at least %d", n-q, schema.EventHeaderSize)
		}
		e := data[q : q+schema.EventHeaderSize : q+schema.EventHeaderSize]
		end := q + schema.EventHeaderSize + int(le.Uint16(e))
		if end > n {
			return false, r.EventErr(b, q, "event arguments run %d bytes past the end of the block", end-n)
		}
		if c := le.Uint64(e[2:]); c < lo || c > hi {
			return false, r.EventErr(b, q, "event cycle %d lies outside the block's range %d-%d", c, lo, hi)
		}
		in := le.Uint16(e[18:])
		if !uc.OK(in) {
			return false, r.UnitErr(b, q, in)
		}
		u := p.units[in]
		if b.Units == nil {
			if err := j.unnamedClash(q, in); err != nil {
				return false, err
			}
		}
		le.PutUint16(e[18:], u)
		if int(u) != last {
			j.seen[u/64] |= 1 << (u % 64)
			last = int(u)
		}
		f := le.Uint32(e[10:])
		if f < 1<<16 {
			if g := p.fmtDense[f]; g != 0 {
				le.PutUint32(e[10:], g-1)
			}
			fixed = fixed && p.fixedFmt[f]
		} else {
			if g, ok := p.fmts[f]; ok {
				le.PutUint32(e[10:], g)
			}
			fixed = false
		}
		if catsMoved {
			le.PutUint32(e[14:], p.cats.Field(le.Uint32(e[14:])))
		}
		if symsMoved && f < 1<<16 && p.symArgs[f] != nil {
			p.renumberSymbols(data[q+schema.EventHeaderSize:end], int(e[20]), f)
		}
		count++
		q = end
	}
	if count != b.EventCount {
		return false, r.Errorf(tracefile.BlockSection(int(b.Index)), tracefile.HeaderOff(b), "block holds %d events, its header says %d", count, b.EventCount)
	}
	j.units = j.units[:0] // the unit set, in id order
	for w, bits := range j.seen {
		for ; bits != 0; bits &= bits - 1 {
			j.units = append(j.units, uint16(w*64+tzc(bits)))
		}
	}
	return fixed, nil
}
