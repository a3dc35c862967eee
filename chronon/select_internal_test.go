package chronon

import (
	"math"
	"testing"
	"unsafe"
)

// TestSelectLayout pins where the window lives: in the ring's control block
// at the offsets chronon.h reads (win_lo 232, win_span 240), and in the Go
// unit's producer cache line (which follows the gates, gate.go, and starts
// with the fast word), beside the fields the emit path reads anyway.
func TestSelectLayout(t *testing.T) {
	var h ringHdr
	if off := unsafe.Offsetof(h.winLo); off != 232 {
		t.Errorf("ringHdr.winLo at %d, want 232", off)
	}
	if off := unsafe.Offsetof(h.winSpan); off != 240 {
		t.Errorf("ringHdr.winSpan at %d, want 240", off)
	}
	var u Unit
	line := unsafe.Offsetof(u.fast)
	if line%64 != 0 {
		t.Errorf("Unit.fast at %d, not at the start of a cache line", line)
	}
	for name, end := range map[string]uintptr{
		"mask": unsafe.Offsetof(u.mask) + 8, "off": unsafe.Offsetof(u.off) + 4, "lim": unsafe.Offsetof(u.lim) + 4,
		"chunk": unsafe.Offsetof(u.chunk) + 8, "srcWord": unsafe.Offsetof(u.srcWord) + 8,
		"wlo": unsafe.Offsetof(u.wlo) + 8, "wspan": unsafe.Offsetof(u.wspan) + 8,
	} {
		if end > line+64 {
			t.Errorf("Unit.%s ends at %d, past the producer's cache line (%d-%d)", name, end, line, line+64)
		}
	}
	if off := unsafe.Offsetof(u.gate); off != 0 {
		t.Errorf("Unit.gate at %d: a zero format's gate offset 0 must be gate[0]", off)
	}
	var none selection
	if lo, span := none.window(); lo != 0 || span != math.MaxUint64 {
		t.Errorf("no selection: window (%d, %d), want (0, MaxUint64): every cycle must pass", lo, span)
	}
}

// Cycles are decimal or 0x hex, as trace_reader's --cycles reads them: a
// leading zero is not octal, and strconv's other prefixes are refused.
func TestSelectCycleNumbers(t *testing.T) {
	for _, c := range []struct {
		in     string
		lo, hi uint64
	}{{"cycles=010-020", 10, 20}, {"cycles=0x10-0X20", 16, 32}, {"cycles=7-", 7, 1<<64 - 1},
		// A alone is "from A on", as trace_reader's --cycles A and the SQL
		// tables' cycles read it (internal/cyclenum), not the one cycle A.
		{"cycles=7", 7, 1<<64 - 1}, {"cycles=0x10", 16, 1<<64 - 1}} {
		sel, err := parseSelect(c.in)
		if err != nil || sel.lo != c.lo || sel.hi != c.hi {
			t.Errorf("%s: got %d-%d, %v; want %d-%d", c.in, sel.lo, sel.hi, err, c.lo, c.hi)
		}
	}
	for _, bad := range []string{"cycles=0o17", "cycles=0b101", "cycles=1_000", "cycles=5-0o7"} {
		if _, err := parseSelect(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
