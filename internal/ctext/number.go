package ctext

import (
	"math"
	"slices"
	"strconv"

	"github.com/chronon-sim/chronon-go/internal/decimal"
)

// Number formatting that prints exactly what C's printf printed in the
// original reader. Integers are written straight into dst (package decimal:
// strconv formats into a scratch buffer and copies); floats go through
// strconv.

// appendUint is decimal.Append: the digits written in place.
func appendUint(dst []byte, v uint64) []byte { return decimal.Append(dst, v) }

func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		return appendUint(append(dst, '-'), uint64(-v)) // -MinInt64 wraps to its magnitude
	}
	return appendUint(dst, uint64(v))
}

const hexDigits = "0123456789abcdef"

// appendHex appends v in lower-case hex without leading zeros (C's %x).
func appendHex(dst []byte, v uint64) []byte {
	n := 1
	for x := v >> 4; x != 0; x >>= 4 {
		n++
	}
	dst = grow(dst, n)
	b := dst[len(dst)-n:]
	for i := n - 1; i >= 0; i-- {
		b[i] = hexDigits[v&15]
		v >>= 4
	}
	return dst
}

// grow extends dst by n bytes (contents of the new bytes undefined).
func grow(dst []byte, n int) []byte {
	dst = slices.Grow(dst, n)
	return dst[:len(dst)+n]
}

// AppendCFloat appends v as C's printf("%g", v) prints it with glibc: six
// significant digits, trailing zeros removed, an exponent of at least two
// digits, and "inf", "-inf", "nan", "-nan" (the sign bit of a NaN is printed).
//
// strconv's 'g' format with precision 6 makes the same choice between fixed
// and exponent notation as C (exponent < -4 or >= precision) and rounds the
// exact binary value half-to-even as glibc does; only the special values are
// spelled differently.
func AppendCFloat(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}

// AppendCycle appends "[%10d]" of v: the cycle right-aligned in ten columns,
// longer numbers simply longer.
func AppendCycle(dst []byte, v uint64) []byte {
	n := decimal.Len(v)
	w := max(n, 10)
	dst = grow(dst, w+2)
	b := dst[len(dst)-w-2:]
	b[0] = '['
	for i := 1; i <= w-n; i++ {
		b[i] = ' '
	}
	decimal.Put(b[1+w-n:], v, n)
	b[w+1] = ']'
	return dst
}
