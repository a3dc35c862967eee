package chronon

import (
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Gates let the inlined Emit reject both a disabled category and a cycle
// before the record-time window with one test: the inliner's budget (80)
// leaves no room for a second test in Emit of formats with arguments.
//
// Formats with the same category mask share a gate slot; each Go unit keeps
// one gate per slot, the lowest cycle at which an event of the slot goes out
// of line: MaxUint64 while the unit's mask disables the slot's mask, the
// window's first cycle (0 without a window) while it enables it. A format
// keeps its gate's byte offset in Unit (goff), so the inlined test is an
// add, a load and a compare: an index would add a bounds check and 4
// inliner nodes. Emit calls the out-of-line path when gate <= cycle, and
// that path checks the mask and the window exactly unless the unit's fast
// word (below) says the gate decided alone, so a cycle past the window,
// cycle MaxUint64, the overflow slot or a gate not yet computed cost a call
// but are never recorded wrongly. Only a gate too high for the
// unit's mask would lose events; SetMask, Enable, Disable and the lazy
// computation of a new slot (rejected) therefore compute gates under the
// unit's gateMu, from the mask read under it.
//
// What the gate costs against the mask test it replaced (u.mask&f.category,
// two loads side by side): the gate's address depends on a load from the
// format, so a call site that loads the format from a variable has a chain
// of three loads where it had two. scripts/emitcompare.sh measures it.
//
// Foreign units (foreign.go) keep their mask in the ring's control block,
// read by their C producer; their Go mask stays 0 and so do all their gates
// at MaxUint64: Emit from Go on such a unit records nothing, as before.

// gateSlots is the number of gates per unit (8 bytes each). Slot 0 belongs
// to no format: its gate stays MaxUint64 and sits at offset 0 of Unit, so
// Emit of a zero FormatN (never registered, goff 0) records nothing, as the
// mask test did; at cycle MaxUint64 its out-of-line path rejects it. The last slot is the
// overflow slot, shared by every mask beyond the first gateSlots-2 distinct
// ones; its gate stays 0: its events always go out of line.
const (
	gateSlots    = 64
	overflowSlot = gateSlots - 1
)

// gateReg assigns gate slots to category masks, process-wide like the
// format registry: slots 1..n hold masks[1..n].
var gateReg struct {
	mu    sync.Mutex
	masks [overflowSlot]uint64 // masks[s] is written before n covers s
	n     atomic.Uint32        // highest slot assigned
}

// gateSlot returns the slot of a format with category mask mask, and the
// byte offset in Unit of the slot's gate, which the inlined Emit adds to
// the unit's address: an index would cost a bounds check and a scaled
// address at every call site.
func gateSlot(mask uint64) (uint8, uintptr) {
	s := gateSlotOf(mask)
	return s, unsafe.Offsetof(Unit{}.gate) + uintptr(s)*unsafe.Sizeof(Unit{}.gate[0])
}

func gateSlotOf(mask uint64) uint8 {
	gateReg.mu.Lock()
	defer gateReg.mu.Unlock()
	n := gateReg.n.Load()
	for s := uint32(1); s <= n; s++ {
		if gateReg.masks[s] == mask {
			return uint8(s)
		}
	}
	if n+1 == overflowSlot {
		return overflowSlot
	}
	gateReg.masks[n+1] = mask
	gateReg.n.Store(n + 1) // publishes masks[n+1] to setGates, which reads without the lock
	return uint8(n + 1)
}

// fastBit is a format's bit in its units' fast word: 1<<slot for a
// fixed-size format outside the overflow slot (and slot 0, which no format
// has), 0 otherwise: such a format always takes the checked path.
func fastBit(slot uint8, varSize bool) uint64 {
	if varSize || slot == 0 || slot >= overflowSlot {
		return 0
	}
	return 1 << slot
}

// The fast word. The out-of-line emit of a format whose bit is set in the
// unit's fast word writes the event without checking anything: the bit
// says the slot's gate is exact, that is computed, for an enabled mask, and
// the window has no end, so an event past the gate is an event to record.
// setGates keeps the word with the gates: a bit is cleared before its gate
// rises to MaxUint64 and set after its gate comes down, so no emit between
// two of its stores records an event its mask disables (an emit racing
// with SetMask may record one event either way, as it may without the word).

// setGates computes the gates of slots 0..n from mask. The caller holds
// u.gateMu (or owns a unit not yet published): two writers interleaving
// could otherwise leave the gates of an older mask behind a newer one, and
// a gate left at MaxUint64 for an enabled category silently drops events.
func (u *Unit) setGates(mask uint64) {
	n := gateReg.n.Load()
	noEnd := u.wspan >= math.MaxUint64-u.wlo && !u.shared // a shared unit's events all go out of line, to its lock
	var fast uint64
	for s := uint32(1); s <= n; s++ {
		if mask&gateReg.masks[s] != 0 && noEnd {
			fast |= 1 << s
		}
	}
	atomic.StoreUint64(&u.fast, atomic.LoadUint64(&u.fast)&fast)
	atomic.StoreUint64(&u.gate[0], math.MaxUint64)
	for s := uint32(1); s <= n; s++ {
		g := uint64(math.MaxUint64)
		if mask&gateReg.masks[s] != 0 {
			g = u.wlo
		}
		atomic.StoreUint64(&u.gate[s], g)
	}
	atomic.StoreUint64(&u.fast, fast)
	u.gated.Store(n + 1)
}

// rejected is called by the out-of-line emit when it drops an event. A
// slot assigned after the unit computed its gates has gate 0 (every event
// goes out of line); the first event dropped computes it, so that later
// events of a disabled category or before the window stop at the call site
// again.
func (u *Unit) rejected(slot uint8) {
	u.rejectedOOL++
	if slot < overflowSlot && uint32(slot) >= u.gated.Load() {
		u.refreshGates()
	}
}

// checkedFast is called by the checked emit path when it records an
// event: a slot assigned after the unit computed its gates has no fast bit,
// so its first recorded event computes them and the next ones take the
// fast path.
func (u *Unit) checkedFast(slot uint8) {
	if slot < overflowSlot && uint32(slot) >= u.gated.Load() {
		u.refreshGates()
	}
}

//go:noinline
func (u *Unit) refreshGates() {
	u.gateMu.Lock()
	u.setGates(atomic.LoadUint64(&u.mask)) // read under the lock: no SetMask can come between
	u.gateMu.Unlock()
}
