package chronon

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/chronon-sim/chronon-go/schema"
)

// Unit is one simulator unit (core0.fetch, core1.l2, ...): an id, a dotted
// name, a type name, a category enable mask and a ring. One goroutine emits
// into a unit at a time, unless the unit was made with WithShared.
type Unit struct {
	// gate[s]: the lowest cycle at which an event of gate slot s may be
	// recorded (gate.go), MaxUint64 while the mask disables the slot; the
	// inlined Emit reads it at the byte offset its format keeps (goff), so
	// the array comes first: a zero format's offset 0 is gate[0], which
	// stays MaxUint64. Atomic: SetMask rewrites the gates from any
	// goroutine, under gateMu (below, with gated, off the producer's line).
	gate [gateSlots]uint64

	// Producer hot path: one cache line.
	fast    uint64         // the gates that are exact, one bit per slot (gate.go); atomic
	mask    uint64         // enabled categories; atomic (written by SetMask from any goroutine)
	off     uint32         // write offset in the current chunk
	lim     atomic.Uint32  // chunk size; 0 sends the next emit to reserve (flush requested, closed, no chunk)
	chunk   unsafe.Pointer // start of the current chunk
	srcWord uint64         // source id, as record bytes 16..24 want it
	maxArgs int            // largest args area an event may have in this unit's chunks
	wlo     uint64         // record-time cycle window (select.go): kept when cycle-wlo <= wspan;
	wspan   uint64         // 0 and MaxUint64 without a window, which every cycle passes

	// Producer slow path. gated counts the gate slots computed;
	// rejectedOOL the events dropped out of line (written by the owner
	// goroutine, read by tests: an event its gate stops never gets there).
	gated       atomic.Uint32
	gateMu      sync.Mutex
	rejectedOOL uint64
	head        uint64 // producer's copy of ring.head
	hasChunk    bool   // the chunk at head is acquired
	chunkVar    bool   // the current chunk holds an event with a string argument
	waitCh      chan struct{}
	waiting     atomic.Bool
	timer       *time.Timer
	active      bool   // the first acquire has run (Tracer.activate)
	grow        uint32 // size of the unit's next chunks (grow.go)

	// A shared unit (WithShared) keeps its fast word 0, so every emit
	// takes the out-of-line path, which holds smu while it writes.
	shared bool
	smu    sync.Mutex

	ring *ring
	t    *Tracer

	// For a foreign unit (a C producer, see foreign.go) the producer state
	// lives in the ring's control block; maskp and limp point at whichever
	// copy is live, for the methods other goroutines call.
	foreign bool
	maskp   *uint64
	limp    *atomic.Uint32

	id       uint16
	name     string
	typeName string

	// Counters, read by Stats from any goroutine. Drops and waits are in
	// the ring's control block, where a C producer can count them too.
	lost    atomic.Uint64 // in blocks that could not be written (I/O error)
	sealed  atomic.Uint64 // events in chunks handed to the writer pipeline
	written atomic.Uint64 // events in blocks written to the file
	// Spans Span.Complete refused: their end is past the last cycle.
	rejectedSpans atomic.Uint64
}

// UnitOption configures a unit at creation.
type UnitOption func(*unitConfig) error

type unitConfig struct {
	foreign  bool
	id       uint16
	typeName string
	mask     uint64
	hasMask  bool
	ringSize int
	shared   bool
}

// WithUnitID chooses the unit's id (1..65535) instead of the next free one.
func WithUnitID(id uint16) UnitOption {
	return func(c *unitConfig) error {
		if id == 0 {
			return errors.New("unit id 0 is reserved for events without a unit")
		}
		c.id = id
		return nil
	}
}

// WithTypeName records the unit's type (for example "L2Cache").
func WithTypeName(name string) UnitOption {
	return func(c *unitConfig) error { c.typeName = name; return nil }
}

// WithUnitMask sets the unit's initial category enable mask (default: the
// tracer's WithDefaultMask).
func WithUnitMask(mask uint64) UnitOption {
	return func(c *unitConfig) error { c.mask, c.hasMask = mask, true; return nil }
}

// WithUnitRingSize overrides the tracer's ring size for this unit: bytes, a
// power of two holding at least two blocks.
func WithUnitRingSize(bytes int) UnitOption {
	return func(c *unitConfig) error { c.ringSize = bytes; return nil }
}

// WithShared makes a unit that several goroutines may emit into at once,
// for code that cannot give each goroutine its own units (the hooks of an
// event-driven engine called from a pool of workers, say). Every emit,
// span, async span and counter call on the unit, and Unit.Flush, then
// holds a lock of the unit's while it writes the event: events of one
// goroutine keep their order, events of several interleave whole. It
// costs each event the lock and the checked out-of-line path, about 8 ns
// more than an unshared unit's 2 to 3 ns without contention, and more
// while goroutines contend for the unit (BenchmarkSharedEmit; figures in
// docs/integrations.md). Units made without it keep the single-producer
// path, whose cost it does not change.
func WithShared() UnitOption {
	return func(c *unitConfig) error { c.shared = true; return nil }
}

// Shared reports whether the unit was made with WithShared.
func (u *Unit) Shared() bool { return u.shared }

// ID returns the unit id written into its events.
func (u *Unit) ID() uint16 { return u.id }

// Name returns the unit's dotted name.
func (u *Unit) Name() string { return u.name }

// TypeName returns the unit's type name.
func (u *Unit) TypeName() string { return u.typeName }

// Mask returns the category enable mask.
func (u *Unit) Mask() uint64 { return atomic.LoadUint64(u.maskp) }

// SetMask replaces the category enable mask. Safe from any goroutine: the
// emitting goroutine sees the change at its next emit.
func (u *Unit) SetMask(mask uint64) {
	if u.foreign { // its C producer reads the mask in the control block; Go keeps no gates for it
		atomic.StoreUint64(u.maskp, mask)
		return
	}
	u.gateMu.Lock()
	atomic.StoreUint64(&u.mask, mask)
	u.setGates(mask)
	u.gateMu.Unlock()
}

// Enable turns categories on.
func (u *Unit) Enable(mask uint64) {
	if u.foreign {
		atomic.OrUint64(u.maskp, mask)
		return
	}
	u.gateMu.Lock()
	u.setGates(atomic.OrUint64(&u.mask, mask) | mask)
	u.gateMu.Unlock()
}

// Disable turns categories off.
func (u *Unit) Disable(mask uint64) {
	if u.foreign {
		atomic.AndUint64(u.maskp, ^mask)
		return
	}
	u.gateMu.Lock()
	u.setGates(atomic.AndUint64(&u.mask, ^mask) &^ mask)
	u.gateMu.Unlock()
}

// Enabled reports whether an event of the given category would be recorded.
func (u *Unit) Enabled(category uint64) bool { return atomic.LoadUint64(u.maskp)&category != 0 }

// Flush publishes the unit's partly filled chunk so that the writer picks it
// up now rather than when the chunk fills. Call it from the goroutine that
// owns the unit (for example when the unit goes idle), or from any
// goroutine for a shared unit.
func (u *Unit) Flush() {
	if u.foreign {
		u.sealForeign()
		return
	}
	if u.shared {
		u.smu.Lock()
		defer u.smu.Unlock()
	}
	if u.hasChunk && u.off > 0 {
		u.seal()
	}
}

// putHeader writes [args_size][record] at off in the current chunk and
// returns where the arguments go.
func (u *Unit) putHeader(off uint32, cycle uint64, f *format, argsSize uint16) unsafe.Pointer {
	p := unsafe.Add(u.chunk, off)
	*(*uint16)(p) = argsSize
	*(*uint64)(unsafe.Add(p, 2)) = cycle
	*(*uint64)(unsafe.Add(p, 10)) = f.idCat
	*(*uint64)(unsafe.Add(p, 18)) = u.srcWord | f.argcWord // source, arg_count, zero padding
	return unsafe.Add(p, schema.EventHeaderSize)
}

// reserve is the emit slow path: the event of n bytes does not fit the
// current chunk, or lim was zeroed to ask for a flush, or there is no chunk.
// It seals what is pending, acquires the next chunk (waiting or dropping per
// the policy) and reports whether the event may be written at offset 0.
//
//go:noinline
func (u *Unit) reserve(n uint32) bool {
	t := u.t
	if t.closed.Load() {
		u.ring.hdr.dropped.Add(1)
		return false
	}
	if u.hasChunk && u.off > 0 {
		if u.lim.Load() != 0 { // the chunk is full, not asked to be flushed
			u.grew()
		}
		u.seal()
	}
	if !u.hasChunk && !u.acquire(n) {
		u.ring.hdr.dropped.Add(1)
		return false
	}
	size := u.ring.slots[u.head&(u.ring.nChunks-1)].cap
	u.lim.Store(size)
	return n <= size // always true: acquire sizes the chunk for the event
}

// seal publishes the current chunk. The chunk now belongs to the consumer,
// so lim drops to 0: the next emit must go through reserve and acquire a new
// chunk, never write behind the published head.
func (u *Unit) seal() {
	r := u.ring
	u.lim.Store(0)
	r.lens[u.head&(r.nChunks-1)] = u.off
	r.hasVar[u.head&(r.nChunks-1)] = u.chunkVar
	u.chunkVar = false
	u.head++
	r.hdr.head.Store(u.head) // release: the chunk's bytes and its length are visible to the consumer
	u.hasChunk = false
	u.off = 0
	u.t.wakeCollector()
}

// acquire takes the chunk at head, waiting for the writer to release one
// when the ring is full, unless the policy is Drop, and sizes it for an
// event of n bytes and the unit's rate (grow.go).
func (u *Unit) acquire(n uint32) bool {
	r := u.ring
	if !u.active { // the unit's first chunk: its ring exists from now on
		u.t.activate(u)
	}
	for u.head-r.hdr.tail.Load() >= r.nChunks {
		if u.t.cfg.policy == Drop {
			return false
		}
		if !u.wait(u.head) {
			return false
		}
	}
	i := u.head & (r.nChunks - 1)
	u.sizeSlot(i, n) // the slot is free: the writer released it, or never had it
	u.chunk = r.slots[i].p
	u.hasChunk = true
	u.off = 0
	return true
}

// wait blocks until the writer releases a chunk of this unit (Block
// policy); head is the producer's head. The timer is a safety net against a
// lost wake-up, not the mechanism. It returns false when the tracer is
// closing.
func (u *Unit) wait(head uint64) bool {
	u.ring.hdr.waits.Add(1)
	u.t.wakeCollector()
	u.waiting.Store(true)
	defer u.waiting.Store(false)
	if head-u.ring.hdr.tail.Load() < u.ring.nChunks {
		return true
	}
	if u.timer == nil {
		u.timer = time.NewTimer(10 * time.Millisecond)
	} else {
		u.timer.Reset(10 * time.Millisecond)
	}
	select {
	case <-u.waitCh:
	case <-u.timer.C:
	}
	return !u.t.closed.Load()
}

// release hands sealed chunk back to the producer (writer goroutine).
func (u *Unit) release() {
	r := u.ring
	r.hdr.tail.Store(r.hdr.tail.Load() + 1)
	if u.waiting.Load() {
		select {
		case u.waitCh <- struct{}{}:
		default:
		}
	}
}

func (c *unitConfig) validate(blockSize int) error {
	if c.ringSize != 0 {
		if c.ringSize&(c.ringSize-1) != 0 || c.ringSize < 2*blockSize {
			return fmt.Errorf("ring size %d is not a power of two holding at least two %d-byte blocks", c.ringSize, blockSize)
		}
	}
	return nil
}
