// Package minheap is a binary min-heap kept in a slice, for queues of
// values ordered by their own Less method (the pending ends of spans, the
// steps of a simulation): container/heap's interface boxes every value
// pushed, an allocation per push, which this does not.
package minheap

// Heap is a min-heap of T ordered by P's Less: h[0] is the least. The
// zero Heap is empty and ready; its values are ordered by P, *T, whose
// Less compares two values in place.
type Heap[T any, P interface {
	*T
	Less(*T) bool
}] []T

// Push adds x.
func (h *Heap[T, P]) Push(x T) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !P(&a[i]).Less(&a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

// Pop removes and returns the least value; h must not be empty. The slot
// it leaves is zeroed, so that the heap keeps no pointer it held.
func (h *Heap[T, P]) Pop() T {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	var zero T
	a[n] = zero
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && P(&a[l]).Less(&a[m]) {
			m = l
		}
		if r := l + 1; r < n && P(&a[r]).Less(&a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
