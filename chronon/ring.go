package chronon

import (
	"sync/atomic"
	"unsafe"
)

// ring is the single-producer, single-consumer buffer a unit emits into: a
// power-of-two number of chunks, each at most one block long, preceded by a
// 256-byte control block (ringHdr). docs/ring.md is the protocol, shared by
// the Go producer (unit.go), the C producer (cgo/chronon.h) and the consumer
// (pipeline.go).
//
// A mapped ring (a C producer's) is one region whose chunks are all a block
// long. A Go ring's chunks are separate allocations that start small and
// grow (grow.go): each slot's memory is allocated, or replaced by a larger
// one, by the producer when it acquires the slot, which it then owns; the
// consumer reads a slot's memory only for chunks sealed after that, so the
// head store publishes it as it publishes the bytes.
//
// The producer fills the chunk at slot head%nChunks with back-to-back
// events, in the exact bytes a block holds; when the next event does not fit
// (or a flush is requested) it records the chunk's length in lens and
// publishes it by storing head+1. The consumer compresses published chunks
// straight from the ring and stores tail+1 once it no longer reads a chunk,
// which hands it back.
//
//	invariants: tail <= head <= tail + nChunks
//	            chunks [tail, head) are sealed and owned by the consumer
//	            chunk head (when head < tail+nChunks) is the producer's
type ring struct {
	hdr       *ringHdr
	mem       []byte    // the control block and lens (and, for a mapped ring, the data)
	lens      []uint32  // sealed length of each chunk slot, written before head is published
	hasVar    []bool    // Go producers: the slot's chunk holds events with string arguments
	data      []byte    // mapped rings: nChunks * chunkSize bytes (+ ringSlack)
	slots     []slotMem // each chunk slot's memory (Go rings: nil until allocated)
	chunkSize uint32
	nChunks   uint64
	unmap     func() error // non-nil for mapped (foreign) rings

	// Consumer-side bookkeeping, touched only by the collector goroutine.
	dispatched uint64 // chunks handed to compression workers
}

// ringHdr is the control block at offset 0 of a ring's memory. Its layout
// is part of the C ABI (docs/ring.md); ring_layout_test.go pins the offsets.
type ringHdr struct {
	head      atomic.Uint64 // chunks sealed; producer, release store
	_         [56]byte
	tail      atomic.Uint64 // chunks released; consumer, release store
	_         [56]byte
	mask      uint64        // category enable mask (C producers; atomic)
	lim       atomic.Uint32 // bytes the producer may fill; 0 = take the slow path
	off       uint32        // write offset in the current chunk
	chunk     uintptr       // address of the current chunk
	headLocal uint64        // producer's copy of head
	hasChunk  uint32        // the chunk at headLocal is acquired
	flags     atomic.Uint32 // flagClosed
	dropped   atomic.Uint64
	waits     atomic.Uint64
	srcWord   uint64 // source_id, as bytes 16..24 of a record want it
	chunkSize uint32
	nChunks   uint32
	maxArgs   uint32
	policy    uint32 // 0 block, 1 drop
	dataOff   uint64
	handle    uint64 // opaque value a C producer passes back when it waits
	magic     uint32
	version   uint32
	winLo     uint64 // record-time cycle window (select.go): C producers keep
	winSpan   uint64 // an event when cycle-winLo <= winSpan
	lock      uint32 // C producers of a shared unit: the producers' lock (cgo/chronon.h)
	shared    uint32 // creator: 1 for a shared unit (WithShared)
}

const (
	ringHdrSize  = 256
	ringMagic    = 0x474E5243 // "CRNG"
	ringVersion  = 1
	flagClosed   = 1
	ringDataAlgn = 64
)

// ringSlack pads the chunk area: the emit path computes the address just
// past an event (where the next argument would go), which for an event
// ending at the last byte of the last chunk would otherwise point past the
// allocation, which unsafe.Pointer rules forbid (checkptr catches it).
const ringSlack = 64

// ringSize is the size of a ring's region.
func ringSize(chunkSize uint32, nChunks int) (size, dataOff int) {
	dataOff = (ringHdrSize + 4*nChunks + ringDataAlgn - 1) &^ (ringDataAlgn - 1)
	return dataOff + int(chunkSize)*nChunks + ringSlack, dataOff
}

// slotMem is the memory of one chunk slot: cap bytes at p (and ringSlack
// more), buf the same bytes as a slice, for the consumer.
type slotMem struct {
	p   unsafe.Pointer
	buf []byte
	cap uint32
}

// newRing makes a ring in Go memory. Only the control block, the lens and
// hasVar exist until the producer's first acquire allocates a chunk: a
// unit that never emits costs a few hundred bytes, not its ring (a
// simulator may register tens of thousands of units and drive few of
// them).
func newRing(chunkSize uint32, nChunks int) *ring {
	_, dataOff := ringSize(chunkSize, nChunks)
	words := make([]uint64, (dataOff+nChunks+7)/8) // 8-byte aligned for the atomics; hasVar after lens
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), dataOff+nChunks)
	h := (*ringHdr)(unsafe.Pointer(&mem[0]))
	h.chunkSize = chunkSize
	h.nChunks = uint32(nChunks)
	h.dataOff = uint64(dataOff) // where a mapped ring's data would start; informative here
	h.magic, h.version = ringMagic, ringVersion
	return &ring{
		hdr:       h,
		mem:       mem[:dataOff],
		lens:      unsafe.Slice((*uint32)(unsafe.Pointer(&mem[ringHdrSize])), nChunks),
		hasVar:    unsafe.Slice((*bool)(unsafe.Pointer(&mem[dataOff])), nChunks),
		slots:     make([]slotMem, nChunks),
		chunkSize: chunkSize,
		nChunks:   uint64(nChunks),
	}
}

// allocSlot gives slot i of a Go ring memory for a chunk of size bytes
// from o (outside the Go heap where it can: offheap.go), replacing and
// freeing what it had. The producer calls it when it acquires the slot,
// which the consumer has released: nothing reads the old memory.
func (r *ring) allocSlot(o *offHeap, i uint64, size uint32) {
	if old := r.slots[i].buf; old != nil {
		o.free(old)
	}
	buf := o.alloc(int(size) + ringSlack)
	r.slots[i] = slotMem{p: unsafe.Pointer(&buf[0]), buf: buf[:size], cap: size}
}

// initRing lays a ring out in mem, which is zeroed and 8-byte aligned.
func initRing(mem []byte, chunkSize uint32, nChunks int) *ring {
	_, dataOff := ringSize(chunkSize, nChunks)
	h := (*ringHdr)(unsafe.Pointer(&mem[0]))
	h.chunkSize = chunkSize
	h.nChunks = uint32(nChunks)
	h.dataOff = uint64(dataOff)
	h.magic, h.version = ringMagic, ringVersion
	r := &ring{
		hdr:       h,
		mem:       mem,
		lens:      unsafe.Slice((*uint32)(unsafe.Pointer(&mem[ringHdrSize])), nChunks),
		hasVar:    make([]bool, nChunks),
		data:      mem[dataOff:],
		slots:     make([]slotMem, nChunks),
		chunkSize: chunkSize,
		nChunks:   uint64(nChunks),
	}
	for i := range r.slots {
		start := i * int(chunkSize)
		buf := r.data[start : start+int(chunkSize)]
		r.slots[i] = slotMem{p: unsafe.Pointer(&buf[0]), buf: buf, cap: chunkSize}
	}
	return r
}

// sealed returns the bytes of sealed chunk seq (consumer side). The length
// comes from the producer, so it is clamped: a buggy C producer must not make
// the consumer read outside the chunk.
func (r *ring) sealed(seq uint64) []byte {
	i := seq & (r.nChunks - 1)
	s := r.slots[i].buf
	return s[:min(uint64(r.lens[i]), uint64(len(s)))]
}
