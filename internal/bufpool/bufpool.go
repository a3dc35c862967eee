// Package bufpool recycles the reader's memory: the buffers compressed
// blocks are decoded into, by power-of-two size class, and free lists of
// objects that keep their slices.
//
// Buffers are recycled through free lists rather than sync.Pool: a pool is
// emptied at every garbage collection, and every fresh buffer costs page
// faults (on the machines this runs on, more than decoding the block). The
// lists are bounded, so an idle process keeps at most a few tens of MiB.
package bufpool

import (
	"math/bits"
	"sync"
)

// bufs recycles the buffers compressed blocks are decoded into. One pool
// serves every reader of the process. Sizes come from validated block
// headers and are at most the format's block limit (64 MiB).
var bufs bufPool

const (
	minBufClass   = 12       // 4 KiB
	bufClassBytes = 16 << 20 // bytes kept per size class
	bufPoolBytes  = 48 << 20 // bytes kept in all
)

// Buffers larger than bufClassBytes (blocks of 32-64 MiB) are kept only
// while an iteration runs (Begin/End), up to bigBufBytes: an iteration that
// cuts windows decodes the same big blocks again for every window, and
// without reuse each decode was a fresh 64 MiB of garbage, which the
// garbage collector's pacing let grow to 3-4 times the memory budget (40
// overlapping 64 MiB blocks, 256 MiB budget: 934 MiB mapped, 160 GB
// allocated). An idle process keeps none of them.
const bigBufBytes = 128 << 20

type bufPool struct {
	mu      sync.Mutex
	classes [28][]*[]byte
	held    int
	bigHeld int // bytes kept in classes above bufClassBytes
	active  int // iterations running (begin without end)
}

func isBig(c int) bool { return 1<<c > bufClassBytes }

// Begin and End bracket an iteration; the last End drops the big buffers.
func Begin() { bufs.begin() }

// End ends what Begin began.
func End() { bufs.end() }

// DropBig drops the idle big buffers: a windowed iteration took the one it
// reuses and counts only that one against its budget.
func DropBig() { bufs.dropBig() }

// DropIdle drops every idle buffer, of every size: an iteration that
// switched to a different way of reading (a spilled or windowed merge)
// reuses none of the blocks' buffers it gave back, and the budget does not
// count them while they are idle.
func DropIdle() { bufs.dropIdle() }

// IsBig reports whether a buffer for n bytes is big: kept only while an
// iteration runs, and dropped by DropBig.
func IsBig(n int) bool { return isBig(Class(n)) }

// BigHeld is how many bytes of big buffers the pool keeps idle.
func BigHeld() int {
	bufs.mu.Lock()
	defer bufs.mu.Unlock()
	return bufs.bigHeld
}

// Get returns an empty buffer with capacity for n bytes (1<<Class(n)).
func Get(n int) *[]byte { return bufs.get(n) }

// Put gives a buffer of Get back; nil and buffers of other capacities are
// ignored.
func Put(b *[]byte) { bufs.put(b) }

func (p *bufPool) begin() {
	p.mu.Lock()
	p.active++
	p.mu.Unlock()
}

func (p *bufPool) end() {
	p.mu.Lock()
	if p.active--; p.active == 0 {
		p.dropBigLocked()
	}
	p.mu.Unlock()
}

func (p *bufPool) dropBig() {
	p.mu.Lock()
	p.dropBigLocked()
	p.mu.Unlock()
}

func (p *bufPool) dropIdle() {
	p.mu.Lock()
	for c := range p.classes {
		clear(p.classes[c])
		p.classes[c] = p.classes[c][:0]
	}
	p.held, p.bigHeld = 0, 0
	p.mu.Unlock()
}

func (p *bufPool) dropBigLocked() {
	for c := range p.classes {
		if isBig(c) {
			clear(p.classes[c])
			p.classes[c] = p.classes[c][:0]
		}
	}
	p.bigHeld = 0
}

// Class is the size class of a buffer for n bytes: its capacity is
// 1<<Class(n).
func Class(n int) int {
	if n <= 1<<minBufClass {
		return minBufClass
	}
	return bits.Len(uint(n - 1))
}

func (p *bufPool) get(n int) *[]byte {
	c := Class(n)
	p.mu.Lock()
	if l := p.classes[c]; len(l) > 0 {
		b := l[len(l)-1]
		p.classes[c] = l[:len(l)-1]
		if isBig(c) {
			p.bigHeld -= 1 << c
		} else {
			p.held -= 1 << c
		}
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	b := make([]byte, 0, 1<<c)
	return &b
}

func (p *bufPool) put(b *[]byte) {
	if b == nil {
		return
	}
	c := bits.Len(uint(cap(*b))) - 1
	if c < minBufClass || c >= len(p.classes) || cap(*b) != 1<<c {
		return
	}
	*b = (*b)[:0]
	p.mu.Lock()
	switch {
	case isBig(c):
		if p.active > 0 && p.bigHeld+1<<c <= bigBufBytes {
			p.classes[c] = append(p.classes[c], b)
			p.bigHeld += 1 << c
		}
	case (len(p.classes[c])+1)<<c <= bufClassBytes && p.held+1<<c <= bufPoolBytes:
		p.classes[c] = append(p.classes[c], b)
		p.held += 1 << c
	}
	p.mu.Unlock()
}

// FreeList is a stack of reusable objects bounded in number and, when Cost
// is set, in the bytes they hold.
type FreeList[T any] struct {
	Limit  int          // most objects kept
	Cost   func(*T) int // bytes an object holds (nil: no byte bound)
	Budget int          // most bytes kept

	mu    sync.Mutex
	items []*T
	held  int
}

// Get returns a kept object, or a new one.
func (l *FreeList[T]) Get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.items); n > 0 {
		x := l.items[n-1]
		l.items = l.items[:n-1]
		if l.Cost != nil {
			l.held -= l.Cost(x)
		}
		return x
	}
	return new(T)
}

// Drop forgets the kept objects.
func (l *FreeList[T]) Drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.items)
	l.items, l.held = l.items[:0], 0
}

// Put keeps x for a later Get, unless the list is full.
func (l *FreeList[T]) Put(x *T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) >= l.Limit {
		return
	}
	if l.Cost != nil {
		c := l.Cost(x)
		if l.held+c > l.Budget {
			return
		}
		l.held += c
	}
	l.items = append(l.items, x)
}
