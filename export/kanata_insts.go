package export

// kInsts is a run's instructions in flight by flow id. Flow ids are mostly
// sequence numbers and those in flight a window of them, so a table
// indexed by the id's low bits holds nearly all of them, one per slot,
// with no hashing; an instruction whose slot is taken by another goes to
// a map (over), which is only looked at when not empty. The map was a
// fifth of the commands' work: a hash and a cache miss per event, a delete
// per instruction.
//
// When the map grows past a sixteenth of the slots, the slots double (up
// to kMaxSlots), so they stay within 16 times the instructions in flight
// for any ids.
type kInsts struct {
	slots []kSlot // len a power of 2
	over  map[uint64]*kInst
}

// kSlot holds an instruction in flight by flow id.
type kSlot struct {
	flow uint64
	in   *kInst
}

const (
	kMinSlots = 1 << 10
	kMaxSlots = 1 << 20
)

func (t *kInsts) slot(flow uint64) *kSlot { return &t.slots[flow&uint64(len(t.slots)-1)] }

// get returns the instruction of flow, or nil.
func (t *kInsts) get(flow uint64) *kInst {
	if len(t.slots) == 0 {
		return nil
	}
	if s := t.slot(flow); s.in != nil && s.flow == flow {
		return s.in
	}
	if len(t.over) == 0 {
		return nil
	}
	return t.over[flow]
}

// put adds the instruction in, of flow in.flow, which t does not hold.
func (t *kInsts) put(in *kInst) {
	if len(t.slots) == 0 {
		t.slots = make([]kSlot, kMinSlots)
	}
	if s := t.slot(in.flow); s.in == nil {
		*s = kSlot{in.flow, in}
		return
	}
	if t.over == nil {
		t.over = map[uint64]*kInst{}
	}
	t.over[in.flow] = in
	if len(t.over) > len(t.slots)/16 && len(t.slots) < kMaxSlots {
		t.grow()
	}
}

// del removes the instruction in.
func (t *kInsts) del(in *kInst) {
	if s := t.slot(in.flow); s.in == in {
		*s = kSlot{}
		return
	}
	delete(t.over, in.flow)
}

// grow doubles the slots and places the instructions again.
func (t *kInsts) grow() {
	old, over := t.slots, t.over
	t.slots, t.over = make([]kSlot, 2*len(old)), nil
	for _, s := range old {
		if s.in != nil {
			t.put(s.in)
		}
	}
	for _, in := range over {
		t.put(in)
	}
}

// each calls fn for every instruction, in no order.
func (t *kInsts) each(fn func(*kInst)) {
	for _, s := range t.slots {
		if s.in != nil {
			fn(s.in)
		}
	}
	for _, in := range t.over {
		fn(in)
	}
}
