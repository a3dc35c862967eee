// Package minheap is a binary min-heap kept in a slice, for queues of
// values due at a time (the pending ends of spans, the steps of a
// simulation): ordered by a key, ties in the order of a sequence number.
// container/heap's interface boxes every value pushed, an allocation per
// push, which this does not; and the order is on two integers the heap
// compares itself, not a method of the values (a call through the generic
// code's dictionary on every comparison, half again as many instructions).
package minheap

// Item is a value with its place in the order: Key, then Seq.
type Item[T any] struct {
	Key, Seq uint64
	Value    T
}

func (a *Item[T]) less(b *Item[T]) bool {
	return a.Key < b.Key || a.Key == b.Key && a.Seq < b.Seq
}

// Heap is a min-heap of items by (Key, Seq): h[0] is the least. The zero
// Heap is empty and ready.
type Heap[T any] []Item[T]

// Push adds v at (key, seq). The sifts move each item once per level
// into the hole the new (or last) item leaves and write that item once at
// the end, rather than swap at each level: a third of the copying.
func (h *Heap[T]) Push(key, seq uint64, v T) {
	x := Item[T]{key, seq, v}
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !x.less(&a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = x
}

// Pop removes and returns the least item; h must not be empty. The slot
// it leaves is zeroed, so that the heap keeps no pointer it held.
func (h *Heap[T]) Pop() Item[T] {
	a := *h
	top := a[0]
	n := len(a) - 1
	x := a[n]
	a[n] = Item[T]{}
	a = a[:n]
	*h = a
	if n == 0 {
		return top
	}
	i := 0
	for {
		m := 2*i + 1
		if m >= n {
			break
		}
		if r := m + 1; r < n && a[r].less(&a[m]) {
			m = r
		}
		if !a[m].less(&x) {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = x
	return top
}
