package chronon

import (
	"math"
	"testing"
	"unsafe"
)

// TestSelectLayout pins where the window lives: in the ring's control block
// at the offsets chronon.h reads (win_lo 232, win_span 240), and in the Go
// unit's first cache line, beside the fields the emit path reads anyway.
func TestSelectLayout(t *testing.T) {
	var h ringHdr
	if off := unsafe.Offsetof(h.winLo); off != 232 {
		t.Errorf("ringHdr.winLo at %d, want 232", off)
	}
	if off := unsafe.Offsetof(h.winSpan); off != 240 {
		t.Errorf("ringHdr.winSpan at %d, want 240", off)
	}
	var u Unit
	if end := unsafe.Offsetof(u.wspan) + 8; end > 64 {
		t.Errorf("Unit.wspan ends at %d, past the first cache line", end)
	}
	var none selection
	if lo, span := none.window(); lo != 0 || span != math.MaxUint64 {
		t.Errorf("no selection: window (%d, %d), want (0, MaxUint64): every cycle must pass", lo, span)
	}
}
