package chronon

import (
	"os"
	"sync"
	"unsafe"
)

// Memory outside the Go heap. The tracer's largest buffers, the Go rings'
// chunks and the compressed blocks on their way to the file, are anonymous
// mappings (offheap_unix.go) where the platform has them: the garbage
// collector neither scans them nor counts them. That matters in a
// simulator whose own heap churns: the collector lets the heap grow to
// about twice what is live (GOGC=100), so every MiB a tracer kept on the
// Go heap would cost the process about two. Only the pages a buffer
// actually touches are resident, so a 4 KiB chunk's slack page and the
// unused end of a block buffer cost address space, not memory.
//
// Where mapping is unavailable or fails (the process's mapping limit),
// the memory comes from make() and the collector owns it, as before.

// offHeap is a set of mappings made for one tracer, so that all of them
// can be released at once.
type offHeap struct {
	mu    sync.Mutex
	live  map[*byte]int // a mapping's first byte -> its length
	bytes int           // sum of live lengths
}

var pageSize = os.Getpagesize()

// alloc returns n zeroed bytes, mapped if it can (the slice's capacity is
// the mapping's, rounded up to a page), else from make.
func (o *offHeap) alloc(n int) []byte {
	size := (n + pageSize - 1) &^ (pageSize - 1)
	if b, ok := mapAnon(size); ok {
		o.mu.Lock()
		if o.live == nil {
			o.live = map[*byte]int{}
		}
		o.live[unsafe.SliceData(b)] = size
		o.bytes += size
		o.mu.Unlock()
		return b[:n]
	}
	words := make([]uint64, (n+7)/8) // 8-byte aligned, as the mappings are
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
}

// free gives back b, which alloc returned: a mapping is unmapped, memory
// from make is left to the collector. Nothing may touch b afterwards.
func (o *offHeap) free(b []byte) {
	p := unsafe.SliceData(b)
	o.mu.Lock()
	size, ok := o.live[p]
	if ok {
		delete(o.live, p)
		o.bytes -= size
	}
	o.mu.Unlock()
	if ok {
		unmapAnon(unsafe.Slice(p, size))
	}
}

// freeAll unmaps every mapping of the set: nothing may touch them again.
func (o *offHeap) freeAll() {
	o.mu.Lock()
	live := o.live
	o.live, o.bytes = nil, 0
	o.mu.Unlock()
	for p, size := range live {
		unmapAnon(unsafe.Slice(p, size))
	}
}

// discardAll hands the pages of every mapping back to the system but
// keeps the mappings: a late write (an emit racing with Close, which the
// API forbids but must not crash on) finds a zeroed page, not a hole.
func (o *offHeap) discardAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, size := range o.live {
		discardAnon(unsafe.Slice(p, size))
	}
}

// mapped returns the bytes mapped now (tests).
func (o *offHeap) mapped() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}
