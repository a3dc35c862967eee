package schema

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// TimeBase says how long one tick (an event's cycle) lasts: Num/Den
// seconds. The zero value (or a zero Num or Den) means cycles have no time.
// A file records one for all its units (Schema.TimeBase) and a unit may
// have its own (Unit.TimeBase: a clock domain).
type TimeBase struct {
	Num, Den uint64
}

// Common time bases.
var (
	Picoseconds  = TimeBase{1, 1_000_000_000_000}
	Nanoseconds  = TimeBase{1, 1_000_000_000}
	Microseconds = TimeBase{1, 1_000_000}
)

// Hz is the time base of a clock of freq cycles per second: one tick is
// one cycle. Hz(0) is the zero TimeBase.
func Hz(freq uint64) TimeBase {
	if freq == 0 {
		return TimeBase{}
	}
	return TimeBase{1, freq}
}

// IsZero reports whether tb records no time.
func (tb TimeBase) IsZero() bool { return tb.Num == 0 || tb.Den == 0 }

// Seconds returns the length of ticks ticks in seconds (0 for a zero
// TimeBase).
func (tb TimeBase) Seconds(ticks uint64) float64 {
	if tb.IsZero() {
		return 0
	}
	return float64(ticks) * float64(tb.Num) / float64(tb.Den)
}

// NsPerTick returns the length of one tick in nanoseconds (0 for a zero
// TimeBase).
func (tb TimeBase) NsPerTick() float64 { return tb.Seconds(1) * 1e9 }

// String is "1 ps", "2.5 ns", "1/3000000000 s": the tick's length.
func (tb TimeBase) String() string {
	if tb.IsZero() {
		return "none"
	}
	for _, u := range []struct {
		name string
		per  uint64
	}{{"s", 1}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}, {"ps", 1e12}, {"fs", 1e15}} {
		// A whole number of the unit, or a short decimal of it.
		n := new(big.Int).Mul(new(big.Int).SetUint64(tb.Num), new(big.Int).SetUint64(u.per))
		q, r := new(big.Int).QuoRem(n, new(big.Int).SetUint64(tb.Den), new(big.Int))
		if r.Sign() == 0 && q.Sign() > 0 && q.Cmp(big.NewInt(1_000_000)) < 0 {
			return q.String() + " " + u.name
		}
	}
	return strconv.FormatUint(tb.Num, 10) + "/" + strconv.FormatUint(tb.Den, 10) + " s"
}

// Nanos converts ticks to nanoseconds with a TimeBase's scale, exactly
// (rounded to the nearest ns) whenever the ratio and the result fit 64
// bits, else through float64. Make one with NewNanos: it reduces the ratio
// once, so each conversion is a multiply and a divide.
type Nanos struct {
	p, d  uint64 // ns per tick = p/d, reduced
	f     float64
	exact bool
}

// NewNanos returns the converter of tb's ticks to nanoseconds. A zero tb
// converts one tick to one nanosecond.
func NewNanos(tb TimeBase) Nanos {
	if tb.IsZero() {
		return Nanos{p: 1, d: 1, f: 1, exact: true}
	}
	num, den := tb.Num, tb.Den
	g := gcd(1_000_000_000, den)
	mul, den := 1_000_000_000/g, den/g
	g = gcd(num, den)
	num, den = num/g, den/g
	hi, p := bits.Mul64(num, mul)
	n := Nanos{p: p, d: den, f: float64(tb.Num) * 1e9 / float64(tb.Den), exact: hi == 0}
	return n
}

// PerTick returns the nanoseconds of one tick.
func (n Nanos) PerTick() float64 { return n.f }

// Of returns ticks in nanoseconds, rounded to the nearest.
func (n Nanos) Of(ticks uint64) uint64 {
	if n.exact {
		if n.d == 1 {
			if hi, lo := bits.Mul64(ticks, n.p); hi == 0 {
				return lo
			}
		} else if hi, lo := bits.Mul64(ticks, n.p); hi < n.d {
			q, r := bits.Div64(hi, lo, n.d)
			if r >= n.d-r && q != math.MaxUint64 { // r >= d/2, rounding half up
				q++
			}
			return q
		}
	}
	v := math.Round(float64(ticks) * n.f)
	if v >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(v)
}

// OfWhole is Of, and whether ticks last a whole number of nanoseconds
// (false: the result was rounded).
func (n Nanos) OfWhole(ticks uint64) (uint64, bool) {
	if n.exact {
		if n.d == 1 {
			if hi, lo := bits.Mul64(ticks, n.p); hi == 0 {
				return lo, true
			}
		} else if hi, lo := bits.Mul64(ticks, n.p); hi < n.d {
			q, r := bits.Div64(hi, lo, n.d)
			if r >= n.d-r && q != math.MaxUint64 {
				q++
			}
			return q, r == 0
		}
	}
	x := float64(ticks) * n.f
	v := math.Round(x)
	if v >= math.MaxUint64 {
		return math.MaxUint64, false
	}
	return uint64(v), v == x
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
