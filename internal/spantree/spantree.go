// Package spantree pairs the begins and ends of async spans, resolves the
// parent ids of spans and events to the spans they name, and orders the
// events of one cycle so that a parent is handled before its children: the
// rules of docs/format.md (roles Id and Parent), shared by the exporters
// and the statistics so that they agree on every span and edge.
//
// The events come in cycle order. A span begins with (unit, id) and ends
// with the same (unit, id): the end closes the span of that unit and id
// begun last. An event with the id role that is not a begin or an end (a
// member: a tag of a task) belongs to that open span of its unit. A parent
// id names the span with that id, on any unit of the same run, that is
// open when the child happens (the one begun last if several); when none
// is, the child waits until the end of its cycle, so that a parent begun
// later in the same cycle (simulators often start a subtask before the
// task that spawned it, at one tick) is still found, and then takes the
// span with that id begun last. A child whose parent never began is
// Missing. Spans of one cycle whose parent ids name each other (a cycle of
// ids) cannot all be handled after their parents: one on the cycle is
// Missing, marked Cycle, and the others get theirs.
//
// Nodes (span begins) are numbered from 0 in the order they are handled,
// the same in every pass over the same events; each child of a node gets
// the next child index of that node.
//
// Memory: the open spans, the ids whose spans ended fewer than MaxEnded
// span ends ago (an id that ended before cannot be a parent any more: its
// late children are Missing),
// the events of one cycle that wait (at most MaxHeld), and 4 bytes per
// node for its child count. The tables are small on purpose: a lookup per
// event, in tables of a few hundred thousand entries, costs a cache miss
// each.
package spantree

// Kind is what an event is to the span trees.
type Kind uint8

const (
	Other  Kind = iota // no id: a child at most (Parent), or nothing
	Begin              // begins span (Unit, ID)
	End                // ends span (Unit, ID)
	Member             // belongs to the open span (Unit, ID)
)

// Info is what the orderer needs of one event.
type Info struct {
	Cycle  uint64
	Run    uint16 // the run of a merged trace; ids of two runs never meet
	Unit   uint16
	Kind   Kind
	ID     uint64
	Parent uint64 // 0: none
}

// Resolved is what the orderer found for an event.
type Resolved struct {
	// Node: a Begin's node number; the node an End closes or a Member
	// belongs to; -1 when none (an end without a begin, a member of no
	// open span, any other event).
	Node int64
	// Parent is the node the event's Parent names, -1 when it has none or
	// it was not found (Missing).
	Parent int64
	// Child is the event's index among Parent's children.
	Child uint32
	// Missing: the event has a parent id that names no span.
	Missing bool
	// Cycle (with Missing): the parent id names a span of the same cycle
	// that waits, directly or through others, for this event's span (a
	// cycle of parent ids): one span of the cycle goes without its parent
	// so that the others have theirs.
	Cycle bool
	// Late: the event waited for the end of its cycle (its parent began
	// after it in the same cycle, or never did).
	Late bool
}

// Limits.
const (
	MaxEnded = 1 << 12 // spans ended since an id's last one ended, up to which it still resolves
	MaxHeld  = 1 << 14 // events of one cycle waiting for a parent
)

type unitKey struct {
	run, unit uint16
	id        uint64
}

// idState is what an id of a run names: the node begun last with it, and
// its open nodes (top, the one begun last, on unit topUnit, and how many;
// an id open more than once, on several units or nested on one, keeps
// them all in Orderer.multi). ended is the number of spans that had ended
// when its last one ended: an ended id resolves while fewer than maxEnded
// spans ended after it.
type idState struct {
	last, top int64 // top: -1 when none is open
	ended     uint64
	open      int32
	topUnit   uint16
}

// openRef is one open span of an id open more than once.
type openRef struct {
	node int64
	unit uint16
}

type held[T any] struct {
	in Info
	v  T
}

// Orderer resolves and orders events; T is the caller's event, handed back
// to emit. Events that wait are copied with Clone (when set: an event
// whose bytes are reused by the next step of an iteration).
type Orderer[T any] struct {
	Clone func(T) T

	cycle    uint64
	started  bool
	next     int64
	children []uint32              // by node
	ids      []map[uint64]idState  // by run
	multi    map[unitKey][]openRef // ids open more than once (unitKey's unit unused), in begin order
	ends     uint64                // spans ended
	held     []held[T]
	blocked  map[unitKey]int // scratch: held begins before the item scanned
	maxEnded int
	maxHeld  int
	cycle1   bool // the event handled now is forced off a cycle of parent ids
}

// NewOrderer returns an Orderer.
func NewOrderer[T any]() *Orderer[T] {
	return &Orderer[T]{multi: map[unitKey][]openRef{}, blocked: map[unitKey]int{}, maxEnded: MaxEnded, maxHeld: MaxHeld}
}

// idsOf returns the ids of a run, made on first use.
func (o *Orderer[T]) idsOf(run uint16) map[uint64]idState {
	for int(run) >= len(o.ids) {
		o.ids = append(o.ids, nil)
	}
	m := o.ids[run]
	if m == nil {
		m = map[uint64]idState{}
		o.ids[run] = m
	}
	return m
}

// Nodes returns the number of nodes so far.
func (o *Orderer[T]) Nodes() int64 { return o.next }

// Children returns the number of children node has had so far.
func (o *Orderer[T]) Children(node int64) uint32 {
	if node < 0 || node >= int64(len(o.children)) {
		return 0
	}
	return o.children[node]
}

// ChildCounts returns every node's number of children (index: node).
func (o *Orderer[T]) ChildCounts() []uint32 { return o.children }

// Emit is called for each event in the order it is handled.
type Emit[T any] func(in Info, v T, r Resolved) error

// Push hands over the next event (cycles never decrease). emit is called
// for it now, or later in its cycle, and for the waiting events it
// releases; an error from emit is returned at once.
func (o *Orderer[T]) Push(in Info, v T, emit Emit[T]) error {
	if o.started && in.Cycle != o.cycle {
		if err := o.Flush(emit); err != nil {
			return err
		}
	}
	o.started, o.cycle = true, in.Cycle
	if len(o.held) == 0 && !o.waits(in) {
		return o.handle(in, v, false, emit)
	}
	if o.waits(in) || o.blockedByHeld(in) {
		if o.Clone != nil {
			v = o.Clone(v)
		}
		o.held = append(o.held, held[T]{in, v})
		if len(o.held) > o.maxHeld { // a cycle full of orphans: let the oldest go
			return o.force(0, false, emit)
		}
		return nil
	}
	return o.handle(in, v, false, emit)
}

// Flush handles every waiting event (the end of the cycle, or of the
// events): parents first where they are among them.
func (o *Orderer[T]) Flush(emit Emit[T]) error {
	for len(o.held) > 0 {
		// The first event whose parent is not itself waiting goes first;
		// when each waits for another (a cycle of ids), one on the cycle.
		pick, cycle := -1, false
		for i := range o.held {
			if o.heldParent(o.held[i].in) < 0 {
				pick = i
				break
			}
		}
		if pick < 0 {
			pick, cycle = o.onCycle(), true
		}
		if err := o.force(pick, cycle, emit); err != nil {
			return err
		}
	}
	return nil
}

// waits reports whether in's parent names no open span yet.
func (o *Orderer[T]) waits(in Info) bool {
	if in.Parent == 0 {
		return false
	}
	return o.idsOf(in.Run)[in.Parent].open == 0
}

// blockedByHeld reports whether a waiting begin opens in's span: in must
// come after it.
func (o *Orderer[T]) blockedByHeld(in Info) bool {
	if in.Kind == Other {
		return false
	}
	k := unitKey{in.Run, in.Unit, in.ID}
	for i := range o.held {
		if h := &o.held[i].in; h.Kind == Begin && (unitKey{h.Run, h.Unit, h.ID}) == k {
			return true
		}
	}
	return false
}

// heldParent returns the index of the waiting begin whose id is in's
// parent id, -1 when none is.
func (o *Orderer[T]) heldParent(in Info) int {
	if in.Parent == 0 {
		return -1
	}
	for i := range o.held {
		if h := &o.held[i].in; h.Kind == Begin && h.Run == in.Run && h.ID == in.Parent {
			return i
		}
	}
	return -1
}

// onCycle returns a waiting event on a cycle of parent ids, when every
// waiting event's parent is a waiting begin: following the parents from
// the first event, the first one met twice (the first event itself may be
// only on the way to the cycle).
func (o *Orderer[T]) onCycle() int {
	seen := make([]bool, len(o.held))
	i := 0
	for !seen[i] {
		seen[i] = true
		if i = o.heldParent(o.held[i].in); i < 0 {
			return 0 // not reached: every waiting event's parent waits
		}
	}
	return i
}

// force handles waiting event i whatever it waits for (cycle: it is on a
// cycle of parent ids), then the events that no longer wait.
func (o *Orderer[T]) force(i int, cycle bool, emit Emit[T]) error {
	h := o.held[i]
	o.held = append(o.held[:i], o.held[i+1:]...)
	o.cycle1 = cycle
	err := o.handle(h.in, h.v, true, emit)
	o.cycle1 = false
	if err != nil {
		return err
	}
	return o.drain(emit)
}

// drain handles, in order, the waiting events that no longer wait, until
// none does.
func (o *Orderer[T]) drain(emit Emit[T]) error {
	for again := true; again; {
		again = false
		clear(o.blocked)
		for i := 0; i < len(o.held); i++ {
			h := o.held[i]
			k := unitKey{h.in.Run, h.in.Unit, h.in.ID}
			if o.waits(h.in) || (h.in.Kind != Other && o.blocked[k] > 0) {
				if h.in.Kind == Begin {
					o.blocked[k]++
				}
				continue
			}
			o.held = append(o.held[:i], o.held[i+1:]...)
			if err := o.handle(h.in, h.v, true, emit); err != nil {
				return err
			}
			if h.in.Kind == Begin { // it may be the parent of an earlier one
				again = true
				break
			}
			i--
		}
	}
	return nil
}

// handle resolves in and emits it; a begin may release waiting events.
func (o *Orderer[T]) handle(in Info, v T, late bool, emit Emit[T]) error {
	r := Resolved{Node: -1, Parent: -1, Late: late}
	ids := o.idsOf(in.Run)
	if in.Parent != 0 {
		if e, ok := ids[in.Parent]; ok {
			switch {
			case e.open > 0:
				r.Parent = e.top
			case o.ends-e.ended < uint64(o.maxEnded):
				r.Parent = e.last
			}
		}
		if r.Parent >= 0 {
			r.Child = o.children[r.Parent]
			if r.Child != ^uint32(0) {
				o.children[r.Parent]++
			}
		} else {
			r.Missing, r.Cycle = true, o.cycle1
		}
	}
	switch in.Kind {
	case Begin:
		r.Node = o.next
		o.next++
		o.children = append(o.children, 0)
		e, ok := ids[in.ID]
		if !ok {
			e.top = -1
		}
		if e.open > 0 { // open on another unit, or nested on this one
			k := unitKey{run: in.Run, id: in.ID}
			m := o.multi[k]
			if len(m) == 0 {
				m = append(m, openRef{e.top, e.topUnit})
			}
			o.multi[k] = append(m, openRef{r.Node, in.Unit})
		}
		e.open++
		e.top, e.topUnit, e.last = r.Node, in.Unit, r.Node
		ids[in.ID] = e
	case End:
		r.Node = o.close(ids, in)
	case Member:
		if e := ids[in.ID]; e.open == 1 && e.topUnit == in.Unit {
			r.Node = e.top
		} else if e.open > 1 {
			m := o.multi[unitKey{run: in.Run, id: in.ID}]
			for i := len(m) - 1; i >= 0; i-- {
				if m[i].unit == in.Unit {
					r.Node = m[i].node
					break
				}
			}
		}
	}
	if err := emit(in, v, r); err != nil {
		return err
	}
	if in.Kind == Begin && len(o.held) > 0 && !late {
		return o.drain(emit)
	}
	return nil
}

// close ends the span of in's unit and id begun last and returns its node,
// or -1 when none is open. An id whose spans all ended is kept for parents
// to name, among the last maxEnded; the table is made anew, without the
// older ones, once they are as many as the rest.
func (o *Orderer[T]) close(ids map[uint64]idState, in Info) int64 {
	e, ok := ids[in.ID]
	if !ok || e.open == 0 {
		return -1
	}
	node := int64(-1)
	if e.open == 1 {
		if e.topUnit != in.Unit {
			return -1 // open on another unit only
		}
		node, e.top = e.top, -1
	} else {
		k := unitKey{run: in.Run, id: in.ID}
		m := o.multi[k]
		for i := len(m) - 1; i >= 0; i-- {
			if m[i].unit == in.Unit {
				node = m[i].node
				m = append(m[:i], m[i+1:]...)
				break
			}
		}
		if node < 0 {
			return -1
		}
		e.top, e.topUnit = m[len(m)-1].node, m[len(m)-1].unit
		if len(m) == 1 {
			delete(o.multi, k)
		} else {
			o.multi[k] = m
		}
	}
	e.open--
	o.ends++
	e.ended = o.ends
	ids[in.ID] = e
	if e.open == 0 && len(ids) > 2*o.maxEnded+4096 && o.ends%uint64(o.maxEnded) == 0 {
		o.expire(in.Run)
	}
	return node
}

// expire drops from a run's ids those whose spans ended too long ago to
// be parents, making the table anew (a Go map that keeps its size through
// millions of deletes probes ever longer past the slots they leave).
func (o *Orderer[T]) expire(run uint16) {
	old := o.ids[run]
	m := make(map[uint64]idState, len(old)/2)
	for id, e := range old {
		if e.open > 0 || o.ends-e.ended < uint64(o.maxEnded) {
			m[id] = e
		}
	}
	o.ids[run] = m
}
