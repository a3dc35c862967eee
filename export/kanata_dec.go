package export

import (
	"math/bits"
	"slices"
)

// appendDec appends v in decimal, as strconv.AppendUint does, but writes
// the digits in place, two at a time: strconv formats into a buffer and
// copies it, a memmove call per number that cost the Kanata export more
// than the formatting (a cycle per event, two numbers per R line).
func appendDec(dst []byte, v uint64) []byte {
	n := decLen(v)
	dst = slices.Grow(dst, n)
	b := dst[len(dst) : len(dst)+n]
	i := n
	for v >= 100 {
		q := v / 100
		r := (v - q*100) * 2
		i -= 2
		b[i], b[i+1] = decPairs[r], decPairs[r+1]
		v = q
	}
	if v >= 10 {
		b[0], b[1] = decPairs[v*2], decPairs[v*2+1]
	} else {
		b[0] = byte('0' + v)
	}
	return dst[:len(dst)+n]
}

// decLen is how many digits v has in decimal.
func decLen(v uint64) int {
	// bits.Len64(v)*1233>>12 is floor(log10(2^bits)): the digit count or
	// one less, which the table settles.
	n := (bits.Len64(v|1) * 1233) >> 12
	if v >= decPow10[n] {
		n++
	}
	return max(n, 1)
}

var decPow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

const decPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" +
	"90919293949596979899"
