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
// Missing.
//
// Nodes (span begins) are numbered from 0 in the order they are handled,
// the same in every pass over the same events; each child of a node gets
// the next child index of that node.
//
// Memory: the open spans, the ids of the last MaxEnded spans that ended
// (an older one cannot be a parent any more: its children are Missing),
// the events of one cycle that wait (at most MaxHeld), and 4 bytes per
// node for its child count.
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
	// Late: the event waited for the end of its cycle (its parent began
	// after it in the same cycle, or never did).
	Late bool
}

// Limits.
const (
	MaxEnded = 1 << 20 // ended spans whose ids still resolve
	MaxHeld  = 1 << 14 // events of one cycle waiting for a parent
)

type unitKey struct {
	run, unit uint16
	id        uint64
}

type idKey struct {
	run uint16
	id  uint64
}

type idEntry struct {
	open []int64 // open nodes with the id, in begin order
	last int64   // the node begun last
}

type held[T any] struct {
	in Info
	v  T
}

type endedID struct {
	key  idKey
	node int64
}

// Orderer resolves and orders events; T is the caller's event, handed back
// to emit. Events that wait are copied with Clone (when set: an event
// whose bytes are reused by the next step of an iteration).
type Orderer[T any] struct {
	Clone func(T) T

	cycle    uint64
	started  bool
	next     int64
	children []uint32 // by node
	byUnit   map[unitKey][]int64
	byID     map[idKey]*idEntry
	ended    []endedID // FIFO of ended ids, from head
	head     int
	held     []held[T]
	blocked  map[unitKey]int // scratch: held begins before the item scanned
	maxEnded int
	maxHeld  int
}

// NewOrderer returns an Orderer.
func NewOrderer[T any]() *Orderer[T] {
	return &Orderer[T]{byUnit: map[unitKey][]int64{}, byID: map[idKey]*idEntry{}, blocked: map[unitKey]int{},
		maxEnded: MaxEnded, maxHeld: MaxHeld}
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
			return o.force(0, emit)
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
		// when each waits for another (a cycle of ids), the first one.
		pick := 0
		for i := range o.held {
			if !o.parentHeld(o.held[i].in) {
				pick = i
				break
			}
		}
		if err := o.force(pick, emit); err != nil {
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
	e := o.byID[idKey{in.Run, in.Parent}]
	return e == nil || len(e.open) == 0
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

// parentHeld reports whether in's parent id is that of a waiting begin.
func (o *Orderer[T]) parentHeld(in Info) bool {
	if in.Parent == 0 {
		return false
	}
	for i := range o.held {
		if h := &o.held[i].in; h.Kind == Begin && h.Run == in.Run && h.ID == in.Parent {
			return true
		}
	}
	return false
}

// force handles waiting event i whatever it waits for, then the events
// that no longer wait.
func (o *Orderer[T]) force(i int, emit Emit[T]) error {
	h := o.held[i]
	o.held = append(o.held[:i], o.held[i+1:]...)
	if err := o.handle(h.in, h.v, true, emit); err != nil {
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
	if in.Parent != 0 {
		if e := o.byID[idKey{in.Run, in.Parent}]; e != nil {
			if n := len(e.open); n > 0 {
				r.Parent = e.open[n-1]
			} else {
				r.Parent = e.last
			}
		}
		if r.Parent >= 0 {
			r.Child = o.children[r.Parent]
			if r.Child != ^uint32(0) {
				o.children[r.Parent]++
			}
		} else {
			r.Missing = true
		}
	}
	uk := unitKey{in.Run, in.Unit, in.ID}
	switch in.Kind {
	case Begin:
		r.Node = o.next
		o.next++
		o.children = append(o.children, 0)
		o.byUnit[uk] = append(o.byUnit[uk], r.Node)
		ik := idKey{in.Run, in.ID}
		e := o.byID[ik]
		if e == nil {
			e = &idEntry{}
			o.byID[ik] = e
		}
		e.open = append(e.open, r.Node)
		e.last = r.Node
	case End:
		st := o.byUnit[uk]
		if len(st) > 0 {
			r.Node = st[len(st)-1]
			if len(st) == 1 {
				delete(o.byUnit, uk)
			} else {
				o.byUnit[uk] = st[:len(st)-1]
			}
			o.closed(idKey{in.Run, in.ID}, r.Node)
		}
	case Member:
		if st := o.byUnit[uk]; len(st) > 0 {
			r.Node = st[len(st)-1]
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

// closed takes node off its id's open spans; an id with none open is
// remembered as ended, among the last maxEnded.
func (o *Orderer[T]) closed(k idKey, node int64) {
	e := o.byID[k]
	if e == nil {
		return
	}
	for i := len(e.open) - 1; i >= 0; i-- {
		if e.open[i] == node {
			e.open = append(e.open[:i], e.open[i+1:]...)
			break
		}
	}
	if len(e.open) > 0 {
		return
	}
	o.ended = append(o.ended, endedID{k, node})
	if len(o.ended)-o.head > o.maxEnded {
		old := o.ended[o.head]
		o.ended[o.head] = endedID{}
		o.head++
		if x := o.byID[old.key]; x != nil && len(x.open) == 0 && x.last == old.node {
			delete(o.byID, old.key)
		}
		if o.head > len(o.ended)/2 { // reuse the consumed front
			o.ended = append(o.ended[:0], o.ended[o.head:]...)
			o.head = 0
		}
	}
}
