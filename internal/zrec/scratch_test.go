package zrec

import (
	"bytes"
	"testing"
	"unsafe"
)

// An encoder whose scratch comes from the caller writes the same frames as
// one that allocates its own, takes all its scratch from the caller, and
// hands back what it replaces when a larger block needs more.
func TestScratchFromTheCaller(t *testing.T) {
	live := map[*byte]int{}
	allocs, frees := 0, 0
	alloc := func(n int) []byte {
		allocs++
		words := make([]uint64, (n+7)/8) // 8-byte aligned, as WithScratch asks
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
		live[&buf[0]] = n
		return buf
	}
	free := func(b []byte) {
		frees++
		if _, ok := live[&b[0]]; !ok {
			t.Fatalf("free of memory alloc did not give")
		}
		delete(live, &b[0])
	}
	small, _ := w1Blocks(2_000, 1, 4<<10, 1)
	big, _ := w1Blocks(20_000, 4, 64<<10, 2)
	inputs := [][]byte{small[0], big[0], mixedBlock(20_000, 1), small[1]}
	e, err := NewEncoder(WithScratch(alloc, free))
	if err != nil {
		t.Fatal(err)
	}
	ref := newTestEncoder()
	for i, in := range inputs {
		got, want := e.EncodeAll(in, nil), ref.EncodeAll(in, nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("input %d: the frame differs with the caller's scratch", i)
		}
	}
	if allocs < 3 {
		t.Errorf("%d scratch allocations: want the first sequences and literals and a larger sequences area", allocs)
	}
	if frees != allocs-2 || len(live) != 2 {
		t.Errorf("%d allocations, %d freed, %d kept: every replaced area is freed, the last two kept", allocs, frees, len(live))
	}
	if _, err := NewEncoder(WithScratch(alloc, nil)); err == nil {
		t.Error("WithScratch without free accepted")
	}
}
