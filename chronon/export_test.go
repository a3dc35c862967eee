package chronon

import "sync/atomic"

// Hooks for the black-box gate tests (gate_test.go): test builds only.

// OverflowSlot is the gate slot shared by masks beyond the slots' capacity.
const OverflowSlot = overflowSlot

// GateOf returns f's gate slot and u's gate for it.
func GateOf[A0 Arg](u *Unit, f *Format1[A0]) (slot uint8, gate uint64) {
	return f.slot, atomic.LoadUint64(&u.gate[f.slot])
}

// CountOutOfLine makes f count the emits that reach its out-of-line path
// (a func value for 6 arguments: see gen_formats.go) and returns the
// counter. Only for formats of one test: it is not undone.
func CountOutOfLine[A0, A1, A2, A3, A4, A5 Arg](f *Format6[A0, A1, A2, A3, A4, A5]) *atomic.Int64 {
	var n atomic.Int64
	out := f.out
	f.out = func(u *Unit, cycle uint64, a0 A0, a1 A1, a2 A2, a3 A3, a4 A4, a5 A5) {
		n.Add(1)
		out(u, cycle, a0, a1, a2, a3, a4, a5)
	}
	return &n
}
