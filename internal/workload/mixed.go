package workload

import (
	"math"
	"strings"
	"sync"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Mixed exercises every argument type, strings from 0 to 4000 bytes, hex
// placeholders, negative values and floats, over many units:
//
//	1 "ints i8={} i16={:x} i32={} i64={:x}"          Int8 Int16 Int32 Int64
//	2 "uints u8={} u16={} u32={:x} u64={}"           UInt8 UInt16 UInt32 UInt64
//	3 "float f={} d={} p={} ok={}"                   Float Double Pointer Bool
//	4 "msg {} len={}"                                String UInt32
//	5 "tick"                                         (no argument)
//
// cycle = 1000; for i in 0..N-1: if next()%4 == 0 then cycle += next()%7;
// unit = 1 + next()%U; kind = next()%5 picks the format; arguments come from
// next() in argument order (strings: length next()%4001 of letters drawn
// from the following next() values, one letter per value).
type Mixed struct {
	Ints   *chronon.Format4[int8, int16, int32, int64]
	Uints  *chronon.Format4[uint8, uint16, uint32, uint64]
	Floats *chronon.Format4[float32, float64, uintptr, bool]
	Msg    *chronon.Format2[string, uint32]
	Tick   *chronon.Format0
}

var (
	mixedOnce sync.Once
	mixed     Mixed
	mixedErr  error
)

// RegisterMixed registers the Mixed formats on first use.
func RegisterMixed() (Mixed, error) {
	mixedOnce.Do(func() {
		var errs [5]error
		mixed.Ints, errs[0] = chronon.NewFormat4[int8, int16, int32, int64]("ints i8={} i16={:x} i32={} i64={:x}")
		mixed.Uints, errs[1] = chronon.NewFormat4[uint8, uint16, uint32, uint64]("uints u8={} u16={} u32={:x} u64={}")
		mixed.Floats, errs[2] = chronon.NewFormat4[float32, float64, uintptr, bool]("float f={} d={} p={} ok={}")
		mixed.Msg, errs[3] = chronon.NewFormat2[string, uint32]("msg {} len={}")
		mixed.Tick, errs[4] = chronon.NewFormat0("tick")
		for _, err := range errs {
			if err != nil {
				mixedErr = err
				return
			}
		}
	})
	return mixed, mixedErr
}

// Emit emits n Mixed events with the given seed into units.
func (m Mixed) Emit(units []*chronon.Unit, seed uint64, n int) {
	r := SplitMix64{State: seed}
	cycle := uint64(1000)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if r.Next()%4 == 0 {
			cycle += r.Next() % 7
		}
		u := units[r.Next()%uint64(len(units))]
		switch r.Next() % 5 {
		case 0:
			m.Ints.Emit(u, cycle, int8(r.Next()), int16(r.Next()), int32(r.Next()), int64(r.Next()))
		case 1:
			m.Uints.Emit(u, cycle, uint8(r.Next()), uint16(r.Next()), uint32(r.Next()), r.Next())
		case 2:
			f := float32(math.Float64frombits(0x3FF0000000000000|r.Next()>>12) * 1000)
			d := math.Float64frombits(r.Next() >> 2) // any finite double, tiny to huge
			m.Floats.Emit(u, cycle, f, d, uintptr(r.Next()), r.Next()&1 == 1)
		case 3:
			l := int(r.Next() % 4001)
			sb.Reset()
			for j := 0; j < l; j++ {
				sb.WriteByte(byte('a' + r.Next()%26))
			}
			m.Msg.Emit(u, cycle, sb.String(), uint32(l))
		default:
			m.Tick.Emit(u, cycle)
		}
	}
}

func runMixed(t *chronon.Tracer, events, units int, seed uint64) error {
	m, err := RegisterMixed()
	if err != nil {
		return err
	}
	us := make([]*chronon.Unit, units)
	for i := range us {
		name, typ := W1UnitName(i + 1)
		if us[i], err = t.NewUnit(name, chronon.WithTypeName(typ)); err != nil { // automatic ids, as NewW1Units
			return err
		}
	}
	m.Emit(us, seed, events)
	return nil
}
