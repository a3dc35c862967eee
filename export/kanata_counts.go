package export

import "sort"

// flowCounts counts events by flow id. Flow ids are mostly sequence
// numbers, which a pre-pass meets in increasing order (an instruction's
// count reaches the table when a newer flow takes its cache slot): those
// append to tail, sorted by id, with no hashing; an id below tail's last
// that tail lacks goes to extra. An id is in one of the two: extra's ids
// are below tail's last when added, and tail only grows upward. 16 bytes
// per flow.
type flowCounts struct {
	tail  []idCount
	extra map[uint64]uint64
	cur   int // where take looks first: instructions mostly begin in id order
}

type idCount struct{ id, n uint64 }

// find returns the index of id in tail, or -1.
func (fc *flowCounts) find(id uint64) int {
	if c := fc.cur; c < len(fc.tail) && fc.tail[c].id == id {
		return c
	}
	i := sort.Search(len(fc.tail), func(i int) bool { return fc.tail[i].id >= id })
	if i < len(fc.tail) && fc.tail[i].id == id {
		return i
	}
	return -1
}

// add counts n more events of id.
func (fc *flowCounts) add(id, n uint64) {
	if k := len(fc.tail); k == 0 || id > fc.tail[k-1].id {
		fc.tail = append(fc.tail, idCount{id, n})
		return
	}
	if i := fc.find(id); i >= 0 {
		fc.tail[i].n += n
		return
	}
	if fc.extra == nil {
		fc.extra = map[uint64]uint64{}
	}
	fc.extra[id] += n
}

// take returns id's count and sets it to 0.
func (fc *flowCounts) take(id uint64) uint64 {
	if i := fc.find(id); i >= 0 {
		n := fc.tail[i].n
		fc.tail[i].n = 0
		fc.cur = i + 1
		return n
	}
	n := fc.extra[id]
	delete(fc.extra, id)
	return n
}

// skip counts one event of id off.
func (fc *flowCounts) skip(id uint64) {
	if i := fc.find(id); i >= 0 {
		if fc.tail[i].n > 0 {
			fc.tail[i].n--
		}
		return
	}
	if n := fc.extra[id]; n > 1 {
		fc.extra[id] = n - 1
	} else {
		delete(fc.extra, id)
	}
}

// merge returns the sum of fc and o, reusing their memory.
func (fc *flowCounts) merge(o *flowCounts) *flowCounts {
	if len(o.tail)+len(o.extra) == 0 {
		return fc
	}
	if len(fc.tail)+len(fc.extra) == 0 {
		return o
	}
	a, b := fc.tail, o.tail
	var out []idCount
	if len(b) > 0 && len(a) > 0 && a[len(a)-1].id < b[0].id {
		out = append(a, b...) // disjoint parts in order: the usual case
	} else {
		if len(a) > 0 && len(b) > 0 && a[0].id > b[0].id {
			a, b = b, a
		}
		out = make([]idCount, 0, len(a)+len(b))
		if len(b) > 0 { // a's ids below b's first: copied as they are
			i := sort.Search(len(a), func(i int) bool { return a[i].id >= b[0].id })
			out, a = append(out, a[:i]...), a[i:]
		}
		for len(a) > 0 && len(b) > 0 {
			switch {
			case a[0].id < b[0].id:
				out, a = append(out, a[0]), a[1:]
			case a[0].id > b[0].id:
				out, b = append(out, b[0]), b[1:]
			default:
				out = append(out, idCount{a[0].id, a[0].n + b[0].n})
				a, b = a[1:], b[1:]
			}
		}
		out = append(append(out, a...), b...)
	}
	// An id of one table's extra may be in the other's tail: add them
	// again, which finds it there.
	sum := &flowCounts{tail: out}
	for _, x := range []map[uint64]uint64{fc.extra, o.extra} {
		for id, n := range x {
			sum.add(id, n)
		}
	}
	return sum
}
