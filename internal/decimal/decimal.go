// Package decimal writes unsigned integers in decimal straight into a byte
// slice, four digits per division and two per table lookup. strconv
// formats into a scratch buffer and copies it: a memmove call per number,
// which cost the reader's dump and the Kanata export more than the
// formatting. mmapio (the original reader's printf output) and export (the
// Kanata log) share it.
package decimal

import (
	"math/bits"
	"slices"
)

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

// Len returns the number of decimal digits of v.
func Len(v uint64) int {
	// bits.Len64(v)*1233>>12 is floor(log10(2^bits)), one less than or
	// equal to the digit count; a table lookup settles it.
	n := (bits.Len64(v|1) * 1233) >> 12
	if v >= pow10[n] {
		n++
	}
	return max(n, 1)
}

// Put writes the n = Len(v) decimal digits of v into b[:n], four at a
// time: the groups' divisions are independent, so they overlap in the CPU.
func Put(b []byte, v uint64, n int) {
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

// Append appends v in decimal, as strconv.AppendUint(dst, v, 10) does.
func Append(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	n := Len(v)
	dst = slices.Grow(dst, n)
	dst = dst[:len(dst)+n]
	Put(dst[len(dst)-n:], v, n)
	return dst
}
