package schema

import (
	"math"
	"testing"
)

func TestCompleteSpanEnd(t *testing.T) {
	for _, c := range []struct {
		begin, dur uint64
		t          ArgType
		end        uint64
		ok         bool
	}{
		{100, 4, ArgUInt64, 104, true},
		{200, 150 - 200 + math.MaxUint64 + 1, ArgUInt64, 0, false}, // end-start with end < start
		{math.MaxUint64 - 3, 3, ArgUInt64, math.MaxUint64, true},   // ends at the last cycle
		{math.MaxUint64 - 3, 4, ArgUInt64, 0, false},
		{3, uint64(math.MaxUint64 - 4), ArgInt64, 0, false}, // -5: before cycle 0
		{3, uint64(math.MaxUint64 - 4), ArgUInt64, math.MaxUint64 - 1, true},
		{10, uint64(math.MaxUint64), ArgInt8, 0, false}, // -1 sign-extended
		{10, 7, ArgInt32, 17, true},
	} {
		end, ok := CompleteSpanEnd(c.begin, c.dur, c.t)
		if end != c.end || ok != c.ok {
			t.Errorf("CompleteSpanEnd(%d, %d, %v) = %d, %v; want %d, %v", c.begin, c.dur, c.t, end, ok, c.end, c.ok)
		}
	}
}
