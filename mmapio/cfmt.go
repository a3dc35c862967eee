package mmapio

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// Number formatting that prints exactly what C's printf printed in the
// original reader. Integers are written straight into dst two digits at a
// time (strconv formats into a scratch buffer and copies); floats go through
// strconv.

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decimalLen returns the number of decimal digits of v.
func decimalLen(v uint64) int {
	// bits.Len64(v)*1233>>12 is floor(log10(2^bits)), one less than or
	// equal to the digit count; a table lookup settles it.
	n := (bits.Len64(v|1) * 1233) >> 12
	if v >= pow10[n] {
		n++
	}
	return max(n, 1)
}

// putDecimal writes the n decimal digits of v into b[:n], four at a time:
// the groups' divisions are independent, so they overlap in the CPU.
func putDecimal(b []byte, v uint64, n int) {
	for n > 4 {
		q := v / 10000
		put4(b[n-4:n], uint32(v-q*10000))
		v = q
		n -= 4
	}
	w := uint32(v)
	switch n {
	case 4:
		put4(b[:4], w)
	case 3:
		h := w / 100
		l := (w - h*100) * 2
		_ = b[2]
		b[0], b[1], b[2] = byte('0'+h), digitPairs[l], digitPairs[l+1]
	case 2:
		_ = b[1]
		b[0], b[1] = digitPairs[w*2], digitPairs[w*2+1]
	case 1:
		b[0] = byte('0' + w)
	}
}

// put4 writes v < 10000 as exactly four digits into b[:4].
func put4(b []byte, v uint32) {
	h := v / 100
	l := (v - h*100) * 2
	h *= 2
	_ = b[3]
	b[0], b[1], b[2], b[3] = digitPairs[h], digitPairs[h+1], digitPairs[l], digitPairs[l+1]
}

func appendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	n := decimalLen(v)
	dst = grow(dst, n)
	putDecimal(dst[len(dst)-n:], v, n)
	return dst
}

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

// appendCFloat appends v as C's printf("%g", v) prints it with glibc: six
// significant digits, trailing zeros removed, an exponent of at least two
// digits, and "inf", "-inf", "nan", "-nan" (the sign bit of a NaN is printed).
//
// strconv's 'g' format with precision 6 makes the same choice between fixed
// and exponent notation as C (exponent < -4 or >= precision) and rounds the
// exact binary value half-to-even as glibc does; only the special values are
// spelled differently.
func appendCFloat(dst []byte, v float64) []byte {
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

// appendCycle appends "[%10d]" of v: the cycle right-aligned in ten columns,
// longer numbers simply longer.
func appendCycle(dst []byte, v uint64) []byte {
	n := decimalLen(v)
	w := max(n, 10)
	dst = grow(dst, w+2)
	b := dst[len(dst)-w-2:]
	b[0] = '['
	for i := 1; i <= w-n; i++ {
		b[i] = ' '
	}
	putDecimal(b[1+w-n:], v, n)
	b[w+1] = ']'
	return dst
}
