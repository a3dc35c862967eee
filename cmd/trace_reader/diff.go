package main

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/chronon-sim/chronon-go/internal/catmap"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// diff compares two runs event by event per unit, not byte by byte: what
// is compared is each unit's sequence of events in the order the file holds
// them (its emission order), each event as [args_size][cycle][format]
// [category][unit][arg_count][args]. Units are matched by name, formats by
// text, argument types and kind, category bits by the names of the
// categories that hold them (catmap), so files of other writers, block sizes
// and levels compare equal when their events are.
//
// The comparison is on bytes, wholesale: each side's blocks are decoded in
// file order (on a goroutine per side) and cut into per-unit runs of event
// bytes (a block of one unit, as our writer writes them, is one run as it
// is); B's unit and format ids are rewritten to A's where they differ; then
// each unit's runs are compared with bytes.Equal as far as both sides have
// them. Events are looked at one by one only for the units that differ,
// afterwards, to print the divergence.

// diffCommand runs diff. Exit status as diff(1): 0 equal, 1 different, 2
// an error (a usage error is 2 as well).
func diffCommand(c *config, stdout io.Writer) error {
	different := false
	err := withOutput(c, stdout, func(w io.Writer) error {
		d, err := diffRuns(c, w)
		different = d
		return err
	})
	var u *usageError
	switch {
	case err == nil:
	case errors.As(err, &u), isBrokenPipe(err):
		return err
	default:
		return &exitError{code: 2, msg: err.Error()}
	}
	if different {
		return &exitError{code: 1}
	}
	return nil
}

// dunit is one unit of the comparison (matched by name across the runs).
type dunit struct {
	name     string
	selected bool         // --unit matches it
	ids      [2][]uint16  // its ids in each run
	known    [2]bool      // the run's schema lists it, or the run has its events
	events   [2]uint64    // events of it in each run (within --cycles)
	pend     [2][]pendRun // event bytes of a side not yet compared
	equal    uint64       // bytes equal in both runs so far
	diverged bool
	at       uint64    // byte offset of the first difference in its runs
	inHeap   [2]bool   // it has a live entry in heads[side] (diffRuns)
	heapKey  [2]uint64 // that entry's cycle
}

// dside is one run.
type dside struct {
	r      *mmapio.Reader
	blocks []mmapio.Block
	bound  []uint64 // bound[i]: the lowest MinCycle of blocks[i:]
	unitIx []int32  // unit id -> dunit index; -1 not looked up yet
	sel    []bool   // unit id -> --unit selects it (set with unitIx)
	canon  []uint16 // unit id -> the id its events carry once normalized (A's)
	fmtTo  map[uint32]uint32
	fmtsID bool       // B only: every format keeps its id
	cats   catmap.Map // B only: its category bits in A's numbering, matched by name
	mem    *sideMem   // what it holds against its budget (diff_mem.go)
}

type differ struct {
	c      *config
	side   [2]*dside
	mu     sync.Mutex // units, byName: the producers add units they meet
	units  []*dunit
	byName map[string]int32
}

// unitAt returns dunit ix (the producers may be appending).
func (d *differ) unitAt(ix int32) *dunit {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.units[ix]
}

// unitKey is the name a unit is matched by: its name, or "#ID" for one
// without (unit 0, ids the schema does not list).
func unitKey(r *mmapio.Reader, id uint16) string {
	if n := r.UnitName(id); n != "" {
		return n
	}
	if id == 0 {
		return "(no unit)"
	}
	return "#" + fmt.Sprint(id)
}

// unit returns the index of side s's unit id, adding it on first sight.
func (d *differ) unit(s int, id uint16) int32 {
	sd := d.side[s]
	if ix := sd.unitIx[id]; ix >= 0 {
		return ix
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	key := unitKey(sd.r, id)
	ix, ok := d.byName[key]
	if !ok {
		ix = int32(len(d.units))
		u := &dunit{name: key, selected: d.c.unitMatches(key)}
		d.units = append(d.units, u)
		d.byName[key] = ix
	}
	u := d.units[ix]
	u.ids[s] = append(u.ids[s], id)
	u.known[s] = true
	// B's events carry A's id for the unit (A's schema units are all looked
	// up before B's); a unit A lacks keeps B's.
	sd.canon[id] = id
	if s == 1 && len(u.ids[0]) > 0 {
		sd.canon[id] = u.ids[0][0]
	}
	sd.sel[id] = u.selected
	sd.unitIx[id] = ix
	return ix
}

func newSide(r *mmapio.Reader) (*dside, error) {
	sd := &dside{r: r, blocks: r.Blocks(), unitIx: make([]int32, 1<<16), sel: make([]bool, 1<<16), canon: make([]uint16, 1<<16),
		fmtTo: map[uint32]uint32{}, fmtsID: true}
	if err := r.Err(); err != nil {
		return nil, err
	}
	for i := range sd.unitIx {
		sd.unitIx[i] = -1
	}
	sd.bound = make([]uint64, len(sd.blocks)+1)
	sd.bound[len(sd.blocks)] = math.MaxUint64
	for i := len(sd.blocks) - 1; i >= 0; i-- {
		sd.bound[i] = min(sd.bound[i+1], sd.blocks[i].MinCycle)
	}
	return sd, nil
}

// fmtKey matches formats across runs: text, argument types, kind, roles.
func fmtKey(f *mmapio.Format) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q|%v|%d|", f.Format.Format, f.ArgTypes, f.Kind)
	for i := range f.ArgTypes {
		fmt.Fprintf(&b, "%d,", f.Role(i))
	}
	return b.String()
}

// mapFormats maps B's format ids to A's (a format A lacks, or a B id that
// names a format where A has none, gets an id no A event has).
func (d *differ) mapFormats() {
	a, b := d.side[0], d.side[1]
	byKey := map[string]uint32{}
	for _, f := range a.r.Formats() {
		if a.r.Format(f.ID) == f {
			byKey[fmtKey(f)] = f.ID
		}
	}
	for _, f := range b.r.Formats() {
		if b.r.Format(f.ID) != f {
			continue // the reader uses the first entry with an id
		}
		to, ok := byKey[fmtKey(f)]
		if !ok {
			to = 0x8000_0000 | f.ID // never an A id the schema names... unless A has such ids
			for a.r.Format(to) != nil {
				to++
			}
		}
		b.fmtTo[f.ID] = to
		if to != f.ID {
			b.fmtsID = false
		}
	}
	// A B event whose id B's schema does not name compares equal to an A
	// event with the same unnamed id; where A names it, it must not.
	for _, f := range a.r.Formats() {
		if b.r.Format(f.ID) == nil {
			b.fmtTo[f.ID] = 0xC000_0000 | f.ID
			b.fmtsID = false
		}
	}
}

// mapCategories maps B's category bits to A's by name (catmap): two runs
// that registered their categories in another order compare equal.
func (d *differ) mapCategories() error {
	t := catmap.NewTable()
	for s, sd := range d.side {
		var masks []uint64
		for _, f := range sd.r.Formats() {
			masks = append(masks, f.Category)
		}
		m, err := t.Add(sd.r.Categories(), masks)
		if err != nil {
			return fmt.Errorf("diff: %s and %s: %w", d.c.files[0], d.c.files[1], err)
		}
		if s == 1 {
			sd.cats = m
		}
	}
	return nil
}

// chunk is a run of one unit's events from one block, normalized. Its
// data is its own (a pooled buffer), handed from the producer to the
// comparer, which puts it back once compared.
type chunk struct {
	unit   int32
	data   []byte
	events uint32
}

// blockChunks is what a producer made of one block.
type blockChunks struct {
	block  int
	chunks []chunk
	err    error
}

// chunkBufs recycles chunk buffers (a block's bytes each, 64 KiB for W1).
var chunkBufs = sync.Pool{New: func() any { return new([]byte) }}

func getBuf() []byte { return (*chunkBufs.Get().(*[]byte))[:0] }

// maxPooled is the largest buffer kept for reuse: a pooled buffer is held
// without being charged to the budget, and a larger one taken for a small
// chunk would be charged far beyond its bytes.
const maxPooled = 1 << 20

func putBuf(b []byte) {
	switch {
	case cap(b) > maxPooled:
		bigBufs.Put(&b)
	case cap(b) > 0:
		chunkBufs.Put(&b)
	}
}

// bigBufs recycles the buffers of blocks larger than maxPooled, for blocks
// only (getBlockBuf): reused, not left to the collector, they keep the
// process near what the budget charges.
var bigBufs = sync.Pool{New: func() any { return new([]byte) }}

// getBlockBuf returns a buffer for a block of n decoded bytes.
func getBlockBuf(n int64) []byte {
	if n <= maxPooled {
		return getBuf()
	}
	if b := (*bigBufs.Get().(*[]byte))[:0]; int64(cap(b)) >= n && int64(cap(b)) <= n+n/16 {
		// (Not much larger: it is charged by its capacity.)
		return b
	}
	return nil
}

// produce decodes side s's blocks in file order and cuts them into chunks.
func (d *differ) produce(s int, out chan<- blockChunks, stop <-chan struct{}) {
	defer close(out)
	sd := d.side[s]
	le := binary.LittleEndian
	send := func(bc blockChunks) bool {
		select {
		case out <- bc:
			return true
		case <-stop:
			return false
		}
	}
	var slot []int32 // by dunit index: its chunk in the block being cut, -1 none
	ahead := d.decodeAhead(s, stop)
	for i := range sd.blocks {
		b := &sd.blocks[i]
		bc := blockChunks{block: i}
		var dec decodedBlock
		select {
		case fut, ok := <-ahead:
			if !ok {
				return // stopped
			}
			dec = <-fut
		case <-stop:
			return
		}
		mem := sd.mem
		if dec.skip {
			if !send(bc) {
				return
			}
			continue
		}
		data, err := dec.data, dec.err
		if err != nil {
			bc.err = err
			send(bc)
			return
		}
		charge := dec.charge
		whole := !d.c.hasCycles || b.MinCycle >= d.c.start && b.MaxCycle <= d.c.end
		if whole && len(b.Units) == 1 {
			// A block of one unit, as our writer writes them: one chunk as
			// it is, unless B's ids need rewriting.
			id := b.Units[0]
			ix := d.unit(s, id)
			if !sd.sel[id] {
				mem.adjust(-charge)
				putBuf(data)
				if !send(bc) {
					return
				}
				continue
			}
			if s == 0 || sd.canon[id] == id && sd.fmtsID && sd.cats.Identity() {
				mem.adjust(int64(cap(data)) - charge)
				bc.chunks = append(bc.chunks, chunk{unit: ix, data: data, events: b.EventCount})
				if !send(bc) {
					return
				}
				continue
			}
		}
		// Event by event: cut by unit, filter, rewrite B's ids. slot finds
		// a unit's chunk of this block (W1 changes unit every event).
		rewrite := s == 1 && (!sd.fmtsID || !sd.cats.Identity())
		for p := 0; p < len(data); {
			n := schema.EventHeaderSize + int(le.Uint16(data[p:]))
			ev := data[p : p+n]
			p += n
			if d.c.hasCycles {
				if c := le.Uint64(ev[2:]); c < d.c.start || c > d.c.end {
					continue
				}
			}
			id := le.Uint16(ev[18:])
			ix := d.unit(s, id)
			if !sd.sel[id] {
				continue
			}
			for int(ix) >= len(slot) {
				slot = append(slot, -1)
			}
			k := slot[ix]
			if k < 0 {
				k = int32(len(bc.chunks))
				slot[ix] = k
				bc.chunks = append(bc.chunks, chunk{unit: ix, data: getBuf()})
			}
			ch := &bc.chunks[k]
			at := len(ch.data)
			ch.data = append(ch.data, ev...)
			ch.events++
			if s == 1 && (rewrite || sd.canon[id] != id) {
				e := ch.data[at:]
				le.PutUint16(e[18:], sd.canon[id])
				if to, ok := sd.fmtTo[le.Uint32(e[10:])]; ok {
					le.PutUint32(e[10:], to)
				}
				le.PutUint32(e[14:], sd.cats.Field(le.Uint32(e[14:])))
			}
		}
		held := int64(0)
		for _, ch := range bc.chunks {
			slot[ch.unit] = -1
			held += int64(cap(ch.data))
		}
		mem.adjust(held - charge)
		putBuf(data)
		if !send(bc) {
			return
		}
	}
}

// decodedBlock is one block of a side, decoded ahead of the producer.
type decodedBlock struct {
	data   []byte
	err    error
	skip   bool  // outside --cycles: not decoded
	charge int64 // what the side's budget was charged for it
}

// decodeAheadBlocks is how many blocks of a side may be decoding or
// decoded and waiting at once (64 KiB each for W1).
const decodeAheadBlocks = 8

// decodeAhead decodes side s's blocks in file order on up to
// decodeAheadBlocks goroutines, so that one side's decoding, the larger
// part of a diff's work, uses every core while the producer cuts the blocks
// it already has. The producer receives each block's result in file order.
func (d *differ) decodeAhead(s int, stop <-chan struct{}) <-chan chan decodedBlock {
	sd := d.side[s]
	out := make(chan chan decodedBlock, decodeAheadBlocks)
	go func() {
		defer close(out)
		for i := range sd.blocks {
			b := &sd.blocks[i]
			fut := make(chan decodedBlock, 1)
			select {
			case out <- fut:
			case <-stop:
				return
			}
			if d.c.hasCycles && (b.MaxCycle < d.c.start || b.MinCycle > d.c.end) {
				fut <- decodedBlock{skip: true}
				continue
			}
			// The block's bytes are taken from the budget before it is
			// decoded: decoding ahead waits while the side is full.
			need, err := d.blockNeed(s, i)
			if err != nil {
				fut <- decodedBlock{err: err}
				return
			}
			if !sd.mem.acquire(need) {
				return // stopped
			}
			go func(i int) {
				data, err := rawread.File(sd.r).AppendBlock(getBlockBuf(need), i)
				fut <- decodedBlock{data: data, err: err, charge: need}
			}(i)
		}
	}()
	return out
}

// pendRun is a chunk's bytes not compared yet.
type pendRun struct {
	data []byte // the whole buffer (put back when done)
	off  int
}

// compare compares unit u's pending runs as far as both sides have them.
// The runs hold whole events, and both sides' streams are equal up to
// where the comparison got, so where it stops is an event boundary of both.
func (u *dunit) compare(m [2]*sideMem) {
	for !u.diverged && len(u.pend[0]) > 0 && len(u.pend[1]) > 0 {
		x, y := &u.pend[0][0], &u.pend[1][0]
		a, b := x.data[x.off:], y.data[y.off:]
		n := min(len(a), len(b))
		if !bytes.Equal(a[:n], b[:n]) {
			i := 0
			for a[i] == b[i] {
				i++
			}
			u.diverge(m, u.equal+uint64(i))
			return
		}
		u.equal += uint64(n)
		x.off += n
		y.off += n
		for s := range 2 {
			if r := u.pend[s][0]; r.off == len(r.data) {
				m[s].pending(-int64(cap(r.data)))
				putBuf(r.data)
				// Cleared: the slice's array would keep the buffer live.
				u.pend[s][0] = pendRun{}
				u.pend[s] = u.pend[s][1:]
			}
		}
	}
}

// mems is both sides' accounts.
func (d *differ) mems() [2]*sideMem { return [2]*sideMem{d.side[0].mem, d.side[1].mem} }

// checkHeads diverges u when a side's leftover starts before every block
// the other side has left (it will never be matched).
func (d *differ) checkHeads(u *dunit, next [2]int) {
	for t := range 2 {
		if c, ok := u.head(t); ok && !u.diverged && c < d.side[1-t].bound[next[1-t]] {
			u.diverge(d.mems(), u.equal)
		}
	}
}

// headEntry is a unit in a heap of pending heads, by cycle.
type headEntry struct {
	cycle uint64
	unit  int32
}

type headHeap []headEntry

func (h headHeap) Len() int           { return len(h) }
func (h headHeap) Less(i, j int) bool { return h[i].cycle < h[j].cycle }
func (h headHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *headHeap) Push(x any)        { *h = append(*h, x.(headEntry)) }
func (h *headHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// head returns the cycle of the first event side s has pending.
func (u *dunit) head(s int) (uint64, bool) {
	if len(u.pend[s]) == 0 {
		return 0, false
	}
	r := u.pend[s][0]
	return binary.LittleEndian.Uint64(r.data[r.off+2:]), true
}

func (u *dunit) diverge(m [2]*sideMem, at uint64) {
	u.diverged, u.at = true, at
	for s := range 2 {
		for _, r := range u.pend[s] {
			m[s].pending(-int64(cap(r.data)))
			putBuf(r.data)
		}
		u.pend[s] = nil
	}
}

// diffRuns compares the runs and writes the report; it returns whether they
// differ.
func diffRuns(c *config, w io.Writer) (bool, error) {
	d := &differ{c: c, byName: map[string]int32{}}
	for s, path := range c.files {
		r, err := openTrace(c, path)
		if err != nil {
			return false, err
		}
		defer r.Close()
		if d.side[s], err = newSide(r); err != nil {
			return false, err
		}
	}
	// The schemas' units first, A's then B's: ids, canonical ids.
	for s := range 2 {
		for _, u := range d.side[s].r.Units() {
			d.unit(s, u.ID)
		}
	}
	if c.hasUnit {
		n := 0
		sc := unitScope{files: c.files}
		for _, u := range d.units {
			if !strings.HasPrefix(u.name, "#") && u.name != "(no unit)" {
				sc.names = append(sc.names, u.name)
				if u.selected {
					n++
				}
			}
		}
		if n == 0 {
			return false, noUnitError(c, sc)
		}
	}
	d.mapFormats()
	if err := d.mapCategories(); err != nil {
		return false, err
	}

	stop := make(chan struct{})
	defer close(stop)
	for s := range 2 {
		d.side[s].mem = newSideMem(diffBudget(c), stop)
	}
	var in [2]chan blockChunks
	for s := range 2 {
		in[s] = make(chan blockChunks, 16)
		go d.produce(s, in[s], stop)
	}
	next := [2]int{}
	// heads[t] holds the units with side t's bytes left over, keyed by the
	// cycle of their first such event (an entry is stale once its unit's
	// head moved: the unit got a fresh one then). Only the units a block
	// touched, and the heap's top, are looked at after each block: a rescan
	// of every pending unit after each block made diffs quadratic in units
	// (65,535 units: a minute for equal files).
	var heads [2]headHeap
	var touched []int32
	for {
		// The side whose next block starts earlier in cycles goes first, so
		// each unit's runs arrive from both sides at about the same pace.
		s := 0
		b0, b1 := d.side[0].bound[next[0]], d.side[1].bound[next[1]]
		if next[0] >= len(d.side[0].blocks) && next[1] >= len(d.side[1].blocks) {
			break
		}
		if next[0] >= len(d.side[0].blocks) || next[1] < len(d.side[1].blocks) && b1 < b0 {
			s = 1
		}
		// At a tie, the side with fewer bytes pending: blocks that all
		// start together (units written side by side) then alternate,
		// each matched as it comes, instead of one run read whole first.
		if b0 == b1 && next[0] < len(d.side[0].blocks) && next[1] < len(d.side[1].blocks) && d.side[1].mem.pendBytes() < d.side[0].mem.pendBytes() {
			s = 1
		}
		var bc blockChunks
		ok := false
		for got := false; !got; {
			// Side s's next block is needed; if its decoding waits for
			// room its own pending events hold, it never comes.
			if d.side[s].mem.full() {
				return false, d.fullErr(s)
			}
			select {
			case bc, ok = <-in[s]:
				got = true
			case <-d.side[s].mem.stuck:
			}
		}
		if !ok {
			return false, fmt.Errorf("diff: %s ended early", c.files[s])
		}
		if bc.err != nil {
			return false, bc.err
		}
		next[s]++
		touched = touched[:0]
		for _, ch := range bc.chunks {
			u := d.unitAt(ch.unit)
			u.events[s] += uint64(ch.events)
			if u.diverged || len(ch.data) == 0 {
				d.side[s].mem.adjust(-int64(cap(ch.data)))
				putBuf(ch.data)
				continue
			}
			d.side[s].mem.pending(int64(cap(ch.data)))
			u.pend[s] = append(u.pend[s], pendRun{data: ch.data})
			u.compare(d.mems())
			touched = append(touched, ch.unit)
		}
		// A side's leftover whose first event lies before every block the
		// other side has left will never be matched: a difference.
		for _, ix := range touched {
			u := d.unitAt(ix)
			d.checkHeads(u, next)
			for t := range 2 {
				if c, ok := u.head(t); ok && !u.diverged && (!u.inHeap[t] || u.heapKey[t] != c) {
					u.inHeap[t], u.heapKey[t] = true, c
					heap.Push(&heads[t], headEntry{cycle: c, unit: ix})
				}
			}
		}
		for t := range 2 {
			h := &heads[t]
			for h.Len() > 0 && (*h)[0].cycle < d.side[1-t].bound[next[1-t]] {
				e := heap.Pop(h).(headEntry)
				u := d.unitAt(e.unit)
				if !u.inHeap[t] || u.heapKey[t] != e.cycle {
					continue // stale: the unit has a fresher entry, or none pending
				}
				u.inHeap[t] = false
				d.checkHeads(u, next)
			}
		}
	}
	for _, u := range d.units {
		if !u.diverged && (len(u.pend[0]) > 0 || len(u.pend[1]) > 0) {
			u.diverge(d.mems(), u.equal)
		}
	}
	return d.report(w)
}
