package zrec

import (
	"errors"
	"unsafe"
)

// WithScratch makes the encoder take its block scratch (the sequences and
// literals of a zstd block: about 6 bytes per input byte, 830 KiB for
// 128 KiB blocks) from alloc instead of the Go heap, and hand what it
// replaces to free. A caller that keeps encoders for a long time in a
// program whose heap churns (a tracer in a simulator) passes memory the
// garbage collector does not count. alloc must return at least n zeroed,
// 8-byte-aligned bytes; the encoder never frees its last scratch (the
// caller releases its memory once the encoder is no longer used).
func WithScratch(alloc func(n int) []byte, free func([]byte)) Option {
	return func(e *Encoder) error {
		if alloc == nil || free == nil {
			return errors.New("zrec: WithScratch needs both alloc and free")
		}
		e.alloc, e.free = alloc, free
		return nil
	}
}

// newSeqs returns room for n sequences, from the caller's scratch if any.
func (e *Encoder) newSeqs(n int) []seq {
	if e.alloc == nil {
		return make([]seq, n)
	}
	if e.seqMem != nil {
		e.free(e.seqMem)
	}
	e.seqMem = e.alloc(n * int(unsafe.Sizeof(seq{})))
	return unsafe.Slice((*seq)(unsafe.Pointer(unsafe.SliceData(e.seqMem))), n)
}

// newLits returns room for n literal bytes, from the caller's scratch if any.
func (e *Encoder) newLits(n int) []byte {
	if e.alloc == nil {
		return make([]byte, 0, n)
	}
	if e.litMem != nil {
		e.free(e.litMem)
	}
	e.litMem = e.alloc(n)
	return e.litMem[:0:n]
}
