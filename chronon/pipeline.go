package chronon

import (
	"encoding/binary"
	"time"

	"github.com/chronon-sim/chronon-go/schema"
)

// The background pipeline:
//
//	producers --seal--> collector --jobs--> workers (compress) --results--> writer --release--> producers
//
// The collector notices sealed chunks and numbers them; any worker
// compresses any chunk; the writer puts blocks in the file in number order
// (so a unit's blocks are in cycle order and the file is the same whatever
// the scheduling) and hands each chunk back to its producer.

type ctlKind uint8

const (
	ctlFlush ctlKind = iota
	ctlSync
	ctlClose
)

type ctlMsg struct {
	kind ctlKind
	done chan struct{}
}

// job is one sealed chunk to compress.
type job struct {
	seq   uint64 // position in the file's block order
	unit  *Unit
	data  []byte // the chunk's bytes in the ring
	fixed bool   // a Go producer wrote only fixed-size events (no scan needed to know)
}

// result is one block ready to append: out holds the 28-byte inline header
// (filled by the worker) followed by the block's data.
type result struct {
	seq      uint64
	unit     *Unit
	out      []byte
	buf      *[]byte // pooled backing of out
	events   uint32
	minCycle uint64
	maxCycle uint64
	usize    uint32
	err      error
}

// barrier asks the writer to act once every block numbered below upTo is
// written: signal done (Flush), after an fsync for Sync.
type barrier struct {
	upTo uint64
	sync bool
	done chan struct{}
}

// foreignPoll is how often the collector looks for chunks sealed by C
// producers.
const foreignPoll = 200 * time.Microsecond

// collect is the collector goroutine.
func (t *Tracer) collect() {
	defer close(t.jobs)
	var tick <-chan time.Time
	if t.cfg.flushInterval > 0 {
		// Requests at half the interval bound the wait of a busy unit's
		// event to one interval.
		tk := time.NewTicker(t.cfg.flushInterval / 2)
		defer tk.Stop()
		tick = tk.C
	}
	// C producers never wake the collector when they seal (that would cost
	// a call into Go per chunk), so while any exists it also polls.
	poll := time.NewTicker(foreignPoll)
	defer poll.Stop()
	var seq uint64
	for {
		t.sleeping.Store(true)
		seq = t.dispatch(seq) // after announcing sleep: a seal racing with it is not missed
		var pollC <-chan time.Time
		if t.hasForeign.Load() {
			pollC = poll.C
		}
		select {
		case <-pollC:
			t.sleeping.Store(false)
		case <-t.wake:
			t.sleeping.Store(false)
		case <-tick:
			t.sleeping.Store(false)
			for _, u := range t.activeList() {
				u.limp.Store(0) // the unit's next emit seals its chunk
			}
		case m := <-t.ctl:
			t.sleeping.Store(false)
			seq = t.dispatch(seq)
			switch m.kind {
			case ctlClose:
				return
			default:
				t.barriers <- barrier{upTo: seq, sync: m.kind == ctlSync, done: m.done}
			}
		}
		seq = t.dispatch(seq)
	}
}

// dispatch hands every newly sealed chunk to the workers, in the order the
// units first emitted. Units that never emitted have no chunks to look at.
func (t *Tracer) dispatch(seq uint64) uint64 {
	for _, u := range t.activeList() {
		r := u.ring
		if t.cfg.discard { // emit benchmarks: measure the producer alone
			for h := r.hdr.head.Load(); r.dispatched < h; r.dispatched++ {
				u.release()
			}
			continue
		}
		for h := r.hdr.head.Load(); r.dispatched < h; r.dispatched++ {
			fixed := !u.foreign && !r.hasVar[r.dispatched&(r.nChunks-1)]
			t.jobs <- job{seq: seq, unit: u, data: r.sealed(r.dispatched), fixed: fixed}
			seq++
		}
	}
	return seq
}

// testHookCompress, when set (before Create), runs before each block is
// compressed: tests use it to stall the pipeline.
var testHookCompress func()

// compressLoop is one compression worker.
func (t *Tracer) compressLoop(enc *blockEncoder) {
	for j := range t.jobs {
		if testHookCompress != nil {
			testHookCompress()
		}
		t.results <- t.encodeJob(enc, j)
	}
}

// encodeJob measures a sealed chunk and compresses it. A chunk a Go
// producer filled with fixed-size events goes straight to the record-aware
// encoder, whose parse yields the event count and cycle range the block
// header needs; any other chunk is walked first (scanBlock), which also
// checks that a C producer's bytes are well formed.
func (t *Tracer) encodeJob(enc *blockEncoder, j job) *result {
	r := &result{seq: j.seq, unit: j.unit, usize: uint32(len(j.data))}
	if len(j.data) == 0 {
		return r // no events: writeResult releases the chunk and writes nothing
	}
	r.buf = t.blockMem.get()
	out := (*r.buf)[:schema.BlockHeaderSize] // the header is filled in below
	if j.fixed && enc.rec != nil {
		out = enc.rec.EncodeAll(j.data, out)
		st, clean := enc.rec.Stats()
		if !clean { // cannot happen for a Go producer; refuse rather than guess
			r.err = schema.Errorf("ring chunk", 0, "unit %q: chunk does not parse as events", j.unit.name)
			return r
		}
		r.events, r.minCycle, r.maxCycle = uint32(st.Events), st.MinCycle, st.MaxCycle
	} else {
		fixed, err := scanBlock(j.data, r)
		if err != nil {
			r.err = err
			return r
		}
		out = enc.encode(out, j.data, fixed)
	}
	csize := len(out) - schema.BlockHeaderSize
	if csize > len(j.data) || (csize == len(j.data) && !enc.raw()) {
		// Not smaller: store raw, marked by equal sizes as the original does.
		out = append(out[:schema.BlockHeaderSize], j.data...)
		csize = len(j.data)
	}
	schema.PutBlockHeader(out, schema.BlockHeader{
		EventCount:       r.events,
		MinCycle:         r.minCycle,
		MaxCycle:         r.maxCycle,
		UncompressedSize: r.usize,
		CompressedSize:   uint32(csize),
	})
	r.out = out
	return r
}

// scanBlock walks a chunk's events: it counts them, finds the cycle range
// and reports whether every event has a fixed-size format (which the
// record-aware encoder handles best). A chunk that does not parse is an
// internal error: Go producers cannot write one, a buggy C producer could.
func scanBlock(b []byte, r *result) (fixed bool, err error) {
	fmts := formatsSnapshot()
	fixed = true
	minC, maxC := ^uint64(0), uint64(0)
	var n uint32
	for off := 0; off < len(b); {
		if len(b)-off < schema.EventHeaderSize {
			return false, schema.Errorf("ring chunk", int64(off), "truncated event")
		}
		size := schema.EventHeaderSize + int(binary.LittleEndian.Uint16(b[off:]))
		if size > len(b)-off {
			return false, schema.Errorf("ring chunk", int64(off), "event of %d bytes runs past the chunk end", size)
		}
		c := binary.LittleEndian.Uint64(b[off+2:])
		minC, maxC = min(minC, c), max(maxC, c)
		if fid := binary.LittleEndian.Uint32(b[off+10:]); fid == 0 || int(fid) > len(fmts) || fmts[fid-1].varSize {
			fixed = false
		}
		n++
		off += size
	}
	if n == 0 {
		minC = 0
	}
	r.events, r.minCycle, r.maxCycle = n, minC, maxC
	return fixed, nil
}

// writeLoop is the writer goroutine: it appends blocks in sequence order,
// releases their chunks, serves flush barriers and finishes the file.
func (t *Tracer) writeLoop() {
	defer close(t.writerOut)
	pending := map[uint64]*result{}
	var next uint64
	var waiting []barrier
	results := t.results
	batch := time.NewTimer(batchDelay)
	batch.Stop()
	armed := false
	for results != nil {
		select {
		case r, ok := <-results:
			if !ok {
				results = nil
				break
			}
			pending[r.seq] = r
			for {
				r, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				t.writeResult(r)
				next++
			}
		case b := <-t.barriers:
			waiting = append(waiting, b)
		case <-batch.C:
			armed = false
			t.flushBlocks()
		}
		switch q := len(t.pend) > 0; {
		case q && !armed:
			batch.Reset(batchDelay)
			armed = true
		case !q && armed:
			batch.Stop()
			armed = false
		}
		waiting = t.serveBarriers(waiting, next)
	}
	batch.Stop()
	// The collector returned and the workers drained: every block is written.
	t.finishFile()
	for {
		select {
		case b := <-t.barriers:
			close(b.done)
		default:
			for _, b := range waiting {
				close(b.done)
			}
			return
		}
	}
}

func (t *Tracer) serveBarriers(waiting []barrier, next uint64) []barrier {
	for _, b := range waiting {
		if b.upTo <= next {
			t.flushBlocks() // the blocks it waits for may be queued
			break
		}
	}
	kept := waiting[:0]
	for _, b := range waiting {
		if b.upTo > next {
			kept = append(kept, b)
			continue
		}
		if b.sync {
			t.fw.sync()
		}
		close(b.done)
	}
	return kept
}

// Write batching: blocks are written in batches of up to maxBatchBlocks
// blocks or maxBatchBytes bytes with one vectored write each
// (fileWriter.flushBlocks), and a block waits at most batchDelay for its
// batch to fill.
const (
	maxBatchBlocks = 32
	maxBatchBytes  = 512 << 10
	batchDelay     = 10 * time.Millisecond
)

// writeResult queues one block (or counts it lost) and releases its chunk.
func (t *Tracer) writeResult(r *result) {
	u := r.unit
	if r.err != nil {
		t.setErr(r.err)
	}
	u.sealed.Add(uint64(r.events))
	queued := false
	switch {
	case r.err == nil && r.events == 0:
		// An empty chunk: correct producers never seal one, but two
		// goroutines misusing one unit (or a buggy C producer) can. A block
		// of no events is one every reader refuses, so none is written; the
		// chunk is still released in its turn.
	case r.err == nil && t.queueBlock(r):
		queued = true // written or lost with its batch (flushBlocks), which keeps its buffer till then
	default:
		u.lost.Add(uint64(r.events))
	}
	u.release()
	if !queued {
		t.recycle(r)
	}
}

// recycle returns a result's output buffer for reuse. The buffer holds the
// largest block (blockBufSize), so out never outgrows it; if it did, the
// larger copy is the collector's and the buffer is reused as it was.
func (t *Tracer) recycle(r *result) {
	if r.buf != nil {
		t.blockMem.put(r.buf)
		r.buf, r.out = nil, nil
	}
}
