package ctracetest

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/schema"
)

// SplitMix64 is the PRNG of the W1 workload.
type SplitMix64 struct{ State uint64 }

// Next returns the next value.
func (s *SplitMix64) Next() uint64 {
	s.State += 0x9E3779B97F4A7C15
	z := s.State
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// W1 format ids.
const (
	W1Fetch  = 1 // "fetch pc=0x{:x} taken={}" (UInt64, Bool)
	W1Decode = 2 // "decode uop={} srcs={} dst={}" (UInt32, UInt8, Int16)
)

var w1Kinds = [8]string{"fetch", "decode", "rename", "rob", "lsu", "l1d", "l2", "dram"}

// W1UnitName is the name of W1 unit u (1-based): core{(u-1)/8}.{kind}.
func W1UnitName(u int) string { return fmt.Sprintf("core%d.%s", (u-1)/8, w1Kinds[(u-1)%8]) }

// W1Schema is the schema of a W1 trace with the given number of units.
func W1Schema(units int) *schema.Schema {
	s := &schema.Schema{Version: 1, SimulationName: "w1", Writer: "ctracetest"}
	for _, f := range []schema.Format{
		{ID: W1Fetch, Format: "fetch pc=0x{:x} taken={}", ArgTypes: []schema.ArgType{schema.ArgUInt64, schema.ArgBool}},
		{ID: W1Decode, Format: "decode uop={} srcs={} dst={}", ArgTypes: []schema.ArgType{schema.ArgUInt32, schema.ArgUInt8, schema.ArgInt16}},
	} {
		f.Category = 2
		f.ArgNames = schema.ArgNames(f.Format)
		s.Formats = append(s.Formats, f)
	}
	s.Categories = []schema.Category{{Name: "pipeline", Description: "W1 pipeline events", Mask: 2}}
	for u := 1; u <= units; u++ {
		s.Units = append(s.Units, schema.Unit{ID: uint16(u), Name: W1UnitName(u), TypeName: w1Kinds[(u-1)%8] + "Unit"})
	}
	return s
}

// W1 generates n events of the W1 workload over the given number of units
// from seed (the benchmarks use seed 1) and passes each to emit, in
// nondecreasing cycle order. args is reused between calls.
func W1(n, units int, seed uint64, emit func(r schema.Record, args []byte) error) error {
	rng := SplitMix64{State: seed}
	cycle := uint64(1000)
	var args Args
	for i := 0; i < n; i++ {
		if rng.Next()%3 == 0 {
			cycle += rng.Next() % 5
		}
		r := schema.Record{Cycle: cycle, Category: 2, SourceID: uint16(1 + i%units)}
		args = args[:0]
		if i%2 == 0 {
			r.FormatID, r.ArgCount = W1Fetch, 2
			args = args.U64(0x400000 + uint64(i*4)%65536).Bool(rng.Next()&1 != 0)
		} else {
			r.FormatID, r.ArgCount = W1Decode, 3
			uop := uint32(rng.Next())
			srcs := uint8(rng.Next())
			dst := int16(rng.Next())
			args = args.U32(uop).U8(srcs).I16(dst)
		}
		if err := emit(r, args); err != nil {
			return err
		}
	}
	return nil
}

// W1Events returns n W1 events as a slice (small n: tests).
func W1Events(n, units int, seed uint64) []Event {
	evs := make([]Event, 0, n)
	_ = W1(n, units, seed, func(r schema.Record, args []byte) error {
		evs = append(evs, Event{Record: r, Args: append([]byte(nil), args...)})
		return nil
	})
	return evs
}
