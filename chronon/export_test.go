package chronon

import "sync/atomic"

// Hooks for the black-box gate tests (gate_test.go): test builds only.

// OverflowSlot is the gate slot shared by masks beyond the slots' capacity.
const OverflowSlot = overflowSlot

// GateOf returns f's gate slot and u's gate for it.
func GateOf[A0 Arg](u *Unit, f *Format1[A0]) (slot uint8, gate uint64) {
	return f.slot, atomic.LoadUint64(&u.gate[f.slot])
}

// RejectedOutOfLine returns how many events of u reached the out-of-line
// emit and were dropped there (the category or the window checked exactly):
// an event stopped by its gate at the call site is not counted. Read it
// from the goroutine that emits into u.
func RejectedOutOfLine(u *Unit) uint64 { return u.rejectedOOL }

// RingBytes returns the bytes of Go ring chunks t has allocated (grow.go).
func RingBytes(t *Tracer) int64 { return t.rings.used.Load() }
