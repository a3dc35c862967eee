package chronon

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/chronon-sim/chronon-go/schema"
)

// ErrClosed is returned by operations on a closed Tracer.
var ErrClosed = errors.New("chronon: tracer is closed")

// Tracer writes one .ctrace file. Create it, make units, emit, Close.
type Tracer struct {
	cfg      config
	path     string
	metadata []schema.KeyValue

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error

	// ctlMu serializes the control calls (Flush, Sync, Close): each seals
	// the units' chunks from the caller's goroutine (sealAll), which two of
	// them at once would race on, and Close's hand-off to the collector must
	// not interleave with a barrier's.
	ctlMu sync.Mutex

	mu     sync.Mutex // serializes unit creation and activation
	units  atomic.Pointer[[]*Unit]
	active atomic.Pointer[[]*Unit] // units with ring memory: what the collector scans
	byID   map[uint16]*Unit
	byName map[string]*Unit
	nextID uint16
	gen    atomic.Uint64 // bumped on unit creation: a schema rewrite is due

	hasForeign atomic.Bool // a C producer exists: the collector polls

	syms      symbolTable // Intern (symbols.go)
	rings     ringBudget  // Go rings' chunk memory (grow.go)
	ringMem   *offHeap    // the Go rings' chunks (offheap.go): discarded at Close, unmapped once the tracer is unreachable
	blockMem  blockBufs   // compressed blocks' buffers (compress.go); unmapped at Close
	encMem    offHeap     // the record encoders' scratch (compress.go); unmapped at Close
	timeMu    sync.Mutex
	unitTimes map[uint16]schema.TimeBase // Unit.SetTimeBase, under timeMu (timebase.go)

	err atomic.Pointer[error] // first I/O or internal error (sticky)

	// Pipeline: collector -> jobs -> workers -> results -> writer.
	wake      chan struct{}
	sleeping  atomic.Bool
	ctl       chan ctlMsg
	jobs      chan job
	results   chan *result
	barriers  chan barrier
	writerOut chan struct{} // closed when the writer has finished the file
	fw        *fileWriter
	pend      []*result // blocks queued in fw, accounted for when written (writer goroutine)

	nBlocks, rawBytes, compBytes atomic.Uint64
	fileBytes                    atomic.Int64
}

// Create opens path for writing (emptying or replacing an existing file)
// and starts the background goroutines. It holds an exclusive lock on the
// file until Close: a second tracer on the same path, in this process or
// another, fails with ErrOutputLocked (on Unix systems). The header goes to disk now; the schema goes with the first
// block, so formats registered until then are in it.
func Create(path string, opts ...Option) (*Tracer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("chronon: %s: %w", path, err)
		}
	}
	if err := cfg.applySelect(os.Getenv); err != nil {
		return nil, fmt.Errorf("chronon: %s: %w", path, err)
	}
	if cfg.ringSize == 0 {
		cfg.ringSize = DefaultRingChunks * cfg.blockSize
	}
	if cfg.ringSize < 2*cfg.blockSize {
		return nil, fmt.Errorf("chronon: %s: ring size %d holds fewer than two %d-byte blocks", path, cfg.ringSize, cfg.blockSize)
	}
	start := time.Now()
	t := &Tracer{
		cfg:       cfg,
		path:      path,
		byID:      map[uint16]*Unit{},
		byName:    map[string]*Unit{},
		nextID:    max(1, cfg.unitIDBase),
		wake:      make(chan struct{}, 1),
		ctl:       make(chan ctlMsg),
		jobs:      make(chan job, 4*cfg.workers),
		results:   make(chan *result, 4*cfg.workers),
		barriers:  make(chan barrier, 16),
		writerOut: make(chan struct{}),
	}
	t.syms.init(cfg.symbolLimit, func() { t.gen.Add(1) })
	t.blockMem.size = blockBufSize(cfg.blockSize)
	t.ringMem = &offHeap{}
	// A unit may outlive Close (an emit after it is counted as dropped), so
	// its chunks stay mapped until neither it nor the tracer is reachable.
	runtime.AddCleanup(t, func(m *offHeap) { m.freeAll() }, t.ringMem)
	t.rings.limit = DefaultRingBudget
	if cfg.hasRingBudget {
		t.rings.limit = int64(cfg.ringBudget)
	}
	if cfg.autoMetadata {
		t.metadata = autoMetadata(start, os.Getenv)
	}
	t.metadata = mergeMetadata(t.metadata, cfg.metadata)
	if cfg.sel.text != "" { // after the explicit pairs: the file says what it holds
		t.metadata = mergeMetadata(t.metadata, [][2]string{{MetadataSelect, cfg.sel.text}})
	}
	fw, err := createFile(path, cfg.level != LevelNone, cfg.schemaReserve, t.setErr)
	if err != nil {
		return nil, err
	}
	t.fw = fw
	enc, err := newEncoders(cfg)
	if err != nil {
		fw.f.Close()
		return nil, fmt.Errorf("chronon: %s: %w", path, err)
	}
	encs := make([]*blockEncoder, cfg.workers)
	for i := range encs {
		if encs[i], err = enc.worker(&t.encMem); err != nil {
			fw.f.Close()
			return nil, fmt.Errorf("chronon: %s: %w", path, err)
		}
	}
	go t.collect()
	var workers sync.WaitGroup
	for _, w := range encs {
		workers.Add(1)
		go func() {
			defer workers.Done()
			t.compressLoop(w)
		}()
	}
	go func() {
		workers.Wait()
		close(t.results)
	}()
	go t.writeLoop()
	return t, nil
}

// Path returns the file the tracer writes.
func (t *Tracer) Path() string { return t.path }

// NewUnit creates a unit with the next free id (or WithUnitID's). name is
// dotted by convention (core0.fetch); names must be unique in the tracer
// and not empty (readers select and label units by name).
func (t *Tracer) NewUnit(name string, opts ...UnitOption) (*Unit, error) {
	if name == "" {
		return nil, errors.New("chronon: a unit needs a name (readers select and print units by name)")
	}
	c := unitConfig{mask: t.cfg.defaultMask}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("chronon: unit %q: %w", name, err)
		}
	}
	if err := c.validate(t.cfg.blockSize); err != nil {
		return nil, fmt.Errorf("chronon: unit %q: %w", name, err)
	}
	ringSize := t.cfg.ringSize
	if c.ringSize != 0 {
		ringSize = c.ringSize
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed.Load() {
		return nil, ErrClosed
	}
	if name != "" && t.byName[name] != nil {
		return nil, fmt.Errorf("chronon: unit %q already exists", name)
	}
	id := c.id
	if id == 0 {
		for t.byID[t.nextID] != nil && t.nextID != 0 {
			t.nextID++
		}
		if t.nextID == 0 {
			if base := t.cfg.unitIDBase; base > 1 {
				return nil, fmt.Errorf("chronon: unit %q: all unit ids from %d (WithUnitIDBase) to 65535 are in use", name, base)
			}
			return nil, errors.New("chronon: all 65535 unit ids are in use")
		}
		id = t.nextID
	} else if t.byID[id] != nil {
		return nil, fmt.Errorf("chronon: unit id %d already used by %q", id, t.byID[id].name)
	}
	blockSize := uint32(t.cfg.blockSize)
	c.mask = t.cfg.sel.unitMask(name, c.mask)
	wlo, wspan := t.cfg.sel.window()
	u := &Unit{
		wlo:      wlo,
		wspan:    wspan,
		srcWord:  uint64(id),
		maxArgs:  min(schema.MaxArgsSize, int(blockSize)-schema.EventHeaderSize),
		t:        t,
		id:       id,
		name:     name,
		typeName: c.typeName,
		shared:   c.shared,
	}
	if c.foreign {
		r, err := newMappedRing(blockSize, ringSize/int(blockSize))
		if err != nil {
			return nil, fmt.Errorf("chronon: unit %q: %w", name, err)
		}
		u.ring, u.foreign = r, true
		u.maskp, u.limp = &r.hdr.mask, &r.hdr.lim
		h := r.hdr
		h.mask, h.srcWord, h.maxArgs = c.mask, u.srcWord, uint32(u.maxArgs)
		h.winLo, h.winSpan = wlo, wspan
		if c.shared {
			h.shared = 1
		}
		if t.cfg.policy == Drop {
			h.policy = 1
		}
		h.handle = uint64(uintptr(unsafe.Pointer(h)))
		u.waitCh = make(chan struct{}, 1)
		u.setGates(0) // Go emits on a foreign unit record nothing, as its Go mask is 0
		registerForeign(u)
		t.hasForeign.Store(true)
		publish(&t.active, u) // a C producer fills the mapped ring without telling Go
	} else {
		u.ring = newRing(blockSize, ringSize/int(blockSize)) // chunks come with the emits (grow.go)
		u.grow = min(firstChunk, blockSize)
		u.maskp, u.limp = &u.mask, &u.lim
		u.mask = c.mask // before the unit is published
		u.setGates(c.mask)
	}
	t.byID[id] = u
	if name != "" {
		t.byName[name] = u
	}
	publish(&t.units, u)
	t.gen.Add(1)
	return u, nil
}

// activate gives a Go unit its ring's chunks and puts it on the list the
// collector scans; the producer calls it once, from its first acquire. A
// simulator with tens of thousands of registered units, few of them busy,
// then pays memory and collector time for the busy ones only.
func (t *Tracer) activate(u *Unit) {
	u.waitCh = make(chan struct{}, 1) // before waiting can be set: release reads it only then
	u.active = true
	t.mu.Lock()
	publish(&t.active, u)
	t.mu.Unlock()
}

// publish appends u to a copy-on-write unit list; the caller holds t.mu.
// Readers see a snapshot whose length never changes, so appending in place
// into spare capacity (beyond every published length) is safe, and
// registering n units costs O(n), not the O(n*n) of copying the list each
// time.
func publish(list *atomic.Pointer[[]*Unit], u *Unit) {
	var cur []*Unit
	if p := list.Load(); p != nil {
		cur = *p
	}
	next := append(cur, u)
	list.Store(&next)
}

// Unit returns the unit with the given name, or nil.
func (t *Tracer) Unit(name string) *Unit {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byName[name]
}

func (t *Tracer) unitList() []*Unit {
	if p := t.units.Load(); p != nil {
		return *p
	}
	return nil
}

// activeList returns the units whose rings have chunks: Go units that have
// emitted, and every foreign unit. The others have nothing to seal or
// dispatch.
func (t *Tracer) activeList() []*Unit {
	if p := t.active.Load(); p != nil {
		return *p
	}
	return nil
}

// Err returns the first error the tracer met, or nil. Tracing goes on
// after an error: after an I/O error events are counted as lost, not
// written (UnitStats.Lost); after an impossible span (ErrImpossibleSpan)
// only the refused spans are missing (UnitStats.Rejected) and the rest of
// the trace is written.
func (t *Tracer) Err() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (t *Tracer) setErr(err error) {
	t.err.CompareAndSwap(nil, &err)
}

// wakeCollector tells the collector a chunk was sealed. It costs one atomic
// load when the collector is already awake.
func (t *Tracer) wakeCollector() {
	if t.sleeping.Load() {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
}

// sealAll publishes every unit's partly filled chunk on the producers'
// behalf. The caller guarantees no emit is in flight (see the package doc).
func (t *Tracer) sealAll() {
	for _, u := range t.activeList() {
		u.Flush()
	}
}

// Flush writes every event emitted so far to the file (without fsync) and
// returns the tracer's error, if any. It must not run concurrently with
// emits (see the package doc): it seals the units' partly filled chunks.
// It may race Close or other Flush and Sync calls: they take turns, and once
// Close has begun Flush returns ErrClosed.
func (t *Tracer) Flush() error { return t.barrier(ctlFlush) }

// Sync is Flush followed by fsync: the events are durable when it returns.
func (t *Tracer) Sync() error { return t.barrier(ctlSync) }

// barrier seals every unit's pending chunk and waits until the writer has
// written every block sealed so far (and fsynced, for ctlSync).
func (t *Tracer) barrier(kind ctlKind) error {
	t.ctlMu.Lock()
	defer t.ctlMu.Unlock()
	if t.closed.Load() {
		return ErrClosed
	}
	t.sealAll()
	done := make(chan struct{})
	// The collector only leaves on ctlClose, which ctlMu keeps from running
	// meanwhile; writerOut is the belt to those braces, so a collector gone
	// for any reason can never leave this send blocked.
	select {
	case t.ctl <- ctlMsg{kind: kind, done: done}:
	case <-t.writerOut:
		return ErrClosed
	}
	<-done // the writer closes every barrier it received, even while exiting
	return t.Err()
}

// Close drains every unit, writes the remaining blocks, the final schema if
// units or formats were added after it was last written, the footer and the
// final header, fsyncs and closes the file. It returns the first error the
// tracer met. Emits after Close are dropped and counted. Close must not run
// concurrently with emits; calling it again, or concurrently, returns the
// same result.
func (t *Tracer) Close() error {
	t.closeOnce.Do(func() {
		t.ctlMu.Lock() // after any Flush or Sync in progress; later ones see closed
		defer t.ctlMu.Unlock()
		t.mu.Lock()
		t.closed.Store(true)
		t.mu.Unlock()
		t.sealAll()
		for _, u := range t.unitList() {
			u.ring.hdr.flags.Or(flagClosed)
			u.limp.Store(0) // any later emit goes to reserve, which counts it dropped
		}
		t.ctl <- ctlMsg{kind: ctlClose}
		<-t.writerOut
		// The pipeline has stopped: its block buffers and encoders are unused, and the
		// rings' pages go back to the system (offheap.go).
		t.blockMem.freeAll()
		t.encMem.freeAll()
		t.ringMem.discardAll()
		t.closeErr = t.Err()
		// Foreign rings stay mapped: a C producer that emits after Close
		// must find memory that says "closed", not a hole. Free unmaps them.
	})
	return t.closeErr
}
