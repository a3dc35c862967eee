package workload

import (
	"fmt"
	"sync"

	"github.com/chronon-sim/chronon-go/chronon"
)

// W1 is the reference workload of the speed targets:
//
//	formats, in this order: 1 = "fetch pc=0x{:x} taken={}" (UInt64, Bool)
//	                        2 = "decode uop={} srcs={} dst={}" (UInt32, UInt8, Int16)
//	units 1..U named core{(u-1)/8}.{kind}, kind = fetch decode rename rob lsu l1d l2 dram
//	by (u-1)%8, type name kind+"Unit"; simulation name "w1"; category 2
//	cycle = 1000; for i in 0..N-1:
//	    if next()%3 == 0: cycle += next()%5
//	    unit = 1 + i%U
//	    i even: fetch  pc = 0x400000 + (i*4)%65536, taken = next()&1
//	    i odd:  decode uop = uint32(next()), srcs = uint8(next()), dst = int16(next())
type W1 struct {
	Fetch  *chronon.Format2[uint64, bool]
	Decode *chronon.Format3[uint32, uint8, int16]
}

// W1Category is the category of both W1 formats.
const W1Category = 2

var unitKinds = [8]string{"fetch", "decode", "rename", "rob", "lsu", "l1d", "l2", "dram"}

var (
	w1Once sync.Once
	w1     W1
	w1Err  error
)

// RegisterW1 registers the W1 formats on first use. Registration is lazy,
// not at init, so that in tracegen they get ids 1 and 2 whatever else is
// linked in.
func RegisterW1() (W1, error) {
	w1Once.Do(func() {
		w1.Fetch, w1Err = chronon.NewFormat2[uint64, bool]("fetch pc=0x{:x} taken={}", chronon.WithCategory(W1Category))
		if w1Err != nil {
			return
		}
		w1.Decode, w1Err = chronon.NewFormat3[uint32, uint8, int16]("decode uop={} srcs={} dst={}", chronon.WithCategory(W1Category))
	})
	return w1, w1Err
}

// W1UnitName returns the name and type name of unit u (1-based).
func W1UnitName(u int) (name, typeName string) {
	kind := unitKinds[(u-1)%8]
	return fmt.Sprintf("core%d.%s", (u-1)/8, kind), kind + "Unit"
}

// NewW1Units creates n units on t, W1's units 1..n by name. Their ids are
// automatic: 1..n on a fresh tracer, or from the tracer's WithUnitIDBase
// (tracegen --unit-id-base, for rank files a merge copies).
func NewW1Units(t *chronon.Tracer, n int) ([]*chronon.Unit, error) {
	units := make([]*chronon.Unit, n)
	for i := range units {
		name, typ := W1UnitName(i + 1)
		u, err := t.NewUnit(name, chronon.WithTypeName(typ))
		if err != nil {
			return nil, err
		}
		units[i] = u
	}
	return units, nil
}

// Emit emits events [from, to) of the W1 stream with the given seed. The
// PRNG state and cycle carry over between calls through st.
func (w W1) Emit(units []*chronon.Unit, st *W1State, from, to int) {
	r := &st.Rng
	cycle := st.Cycle
	nu := len(units)
	ui := from % nu // i % nu, kept as a counter: a 64-bit divide per event cost 4% of tracegen's CPU
	for i := from; i < to; i++ {
		if r.Next()%3 == 0 {
			cycle += r.Next() % 5
		}
		u := units[ui]
		if ui++; ui == nu {
			ui = 0
		}
		if i%2 == 0 {
			pc := 0x400000 + uint64((i*4)&0xffff) // (i*4) % 65536 for i >= 0
			w.Fetch.Emit(u, cycle, pc, r.Next()&1 != 0)
		} else {
			uop := uint32(r.Next())
			srcs := uint8(r.Next())
			dst := int16(r.Next())
			w.Decode.Emit(u, cycle, uop, srcs, dst)
		}
	}
	st.Cycle = cycle
}

// W1State is the PRNG state and current cycle of a W1 stream.
type W1State struct {
	Rng   SplitMix64
	Cycle uint64
}

// NewW1State starts a W1 stream.
func NewW1State(seed uint64) W1State { return W1State{Rng: SplitMix64{State: seed}, Cycle: 1000} }
