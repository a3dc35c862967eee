package chronon

import (
	"sync/atomic"
	"unsafe"
)

// ring is the single-producer, single-consumer buffer a unit emits into: a
// power-of-two number of chunks, each exactly one block long. The producer
// fills the chunk at index head%nChunks with back-to-back events, in the exact
// bytes a block holds; when the next event does not fit (or a flush is
// requested) it records the chunk's length in lens and publishes it by
// storing head+1. The consumer compresses published chunks straight from the
// ring and stores tail+1 once it no longer reads a chunk, which hands it back.
//
//	invariants: tail <= head <= tail + nChunks
//	            chunks [tail, head) are sealed and owned by the consumer
//	            chunk head (when head < tail+nChunks) is the producer's
//
// head and tail count chunks since creation and never wrap in practice
// (2^64 chunks). They sit on separate cache lines so that the producer's and
// the consumer's stores do not contend. docs/ring.md gives the protocol,
// which the C producer of cgo/ follows too.
type ring struct {
	head atomic.Uint64 // chunks sealed; stored by the producer (release)
	_    [56]byte
	tail atomic.Uint64 // chunks released; stored by the consumer (release)
	_    [56]byte

	lens      []uint32 // sealed length of each chunk slot, written before head is published
	data      []byte   // nChunks * chunkSize bytes
	base      unsafe.Pointer
	chunkSize uint32
	nChunks   uint64

	// Consumer-side bookkeeping, touched only by the collector goroutine.
	dispatched uint64 // chunks handed to compression workers
}

// ringSlack pads the ring's allocation: the emit path computes the address
// just past an event (where the next argument would go), which for an event
// ending at the last byte of the last chunk would otherwise point past the
// allocation, which unsafe.Pointer rules forbid (checkptr catches it).
const ringSlack = 64

func newRing(chunkSize uint32, nChunks int) *ring {
	r := &ring{
		lens:      make([]uint32, nChunks),
		data:      make([]byte, int(chunkSize)*nChunks+ringSlack),
		chunkSize: chunkSize,
		nChunks:   uint64(nChunks),
	}
	r.base = unsafe.Pointer(&r.data[0])
	return r
}

// chunk returns the start of the chunk with sequence number seq.
func (r *ring) chunk(seq uint64) unsafe.Pointer {
	return unsafe.Add(r.base, uintptr(seq&(r.nChunks-1))*uintptr(r.chunkSize))
}

// sealed returns the bytes of sealed chunk seq (consumer side).
func (r *ring) sealed(seq uint64) []byte {
	i := seq & (r.nChunks - 1)
	start := i * uint64(r.chunkSize)
	return r.data[start : start+uint64(r.lens[i])]
}
