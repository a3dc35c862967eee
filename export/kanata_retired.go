package export

// kRetired remembers the I ids of the last kRetiredIDs instructions
// retired or flushed, by flow id, so that a dependency on an instruction
// that has left the pipeline still finds it (a W line may name a producer
// that retired earlier: Konata keeps every instruction). Older ones are
// forgotten, oldest first, so the memory stays bounded on a long trace; a
// dependency reaching further back than that is dropped. It is kept only
// when some format has a dependency argument.
type kRetired struct {
	ids  map[uint64]kRetiredID
	ring []uint64 // flow ids in the order retired; ring[next] is the oldest once full
	next int
}

type kRetiredID struct {
	id   uint64 // I id
	slot int    // its place in ring: a flow id retired again (reused) has a newer one
}

const kRetiredIDs = 1 << 16

func (r *kRetired) put(flow, id uint64) {
	if r.ids == nil {
		r.ids = make(map[uint64]kRetiredID)
	}
	slot := len(r.ring)
	if slot < kRetiredIDs {
		r.ring = append(r.ring, flow)
	} else {
		slot = r.next
		if e, ok := r.ids[r.ring[slot]]; ok && e.slot == slot {
			delete(r.ids, r.ring[slot])
		}
		r.ring[slot] = flow
		r.next = (slot + 1) % kRetiredIDs
	}
	r.ids[flow] = kRetiredID{id, slot}
}

func (r *kRetired) get(flow uint64) (uint64, bool) {
	e, ok := r.ids[flow]
	return e.id, ok
}
