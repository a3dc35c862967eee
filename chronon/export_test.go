package chronon

import "sync/atomic"

// Hooks for the black-box gate tests (gate_test.go): test builds only.

// OverflowSlot is the gate slot shared by masks beyond the slots' capacity.
const OverflowSlot = overflowSlot

// GateOf returns f's gate slot and u's gate for it.
func GateOf[A0 Arg](u *Unit, f *Format1[A0]) (slot uint8, gate uint64) {
	return f.slot, atomic.LoadUint64(&u.gate[f.slot])
}

// CountOutOfLine makes f count the emits that reach its out-of-line path;
// it returns the counter. Only for formats of one test: it is not undone.
func CountOutOfLine[A0 Arg](f *Format1[A0]) *atomic.Int64 {
	var n atomic.Int64
	out := f.out
	f.out = func(u *Unit, cycle uint64, a0 A0) { n.Add(1); out(u, cycle, a0) }
	return &n
}
