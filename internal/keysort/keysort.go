// Package keysort sorts 64-bit keys with a 64-bit payload each, stably and
// in a few linear passes: the merge of a reader's blocks orders a cycle
// range's events by cycle this way instead of with a comparison per tree
// level per event.
package keysort

import "math/bits"

// Radix sorts keys ascending, moving refs along, stably, looking only at
// the low nbits of each key (the rest must be zero). It is an LSD radix sort
// with 11-bit digits. tk and tr are
// scratch of at least len(keys); the sorted data ends up in whichever pair
// is returned.
func Radix(keys, refs, tk, tr []uint64, nbits int) ([]uint64, []uint64) {
	const digit = 11
	const buckets = 1 << digit
	n := len(keys)
	tk, tr = tk[:n], tr[:n]
	var count [buckets]int
	for shift := 0; shift < nbits; shift += digit {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(buckets-1)]++
		}
		if count[(keys[0]>>shift)&(buckets-1)] == n {
			continue // every key has the same digit: nothing moves
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for i, k := range keys {
			d := (k >> shift) & (buckets - 1)
			j := count[d]
			count[d] = j + 1
			tk[j], tr[j] = k, refs[i]
		}
		keys, refs, tk, tr = tk, tr, keys, refs
	}
	return keys, refs
}

// Ascending reports whether keys never decrease.
func Ascending(keys []uint64) bool {
	for i := 1; i < len(keys); i++ {
		if keys[i] < keys[i-1] {
			return false
		}
	}
	return true
}

// Bits is how many low bits of the keys Radix must look at when the
// largest is max.
func Bits(max uint64) int { return bits.Len64(max) }

// Counting sorts keys (all < len(counts)) ascending, moving refs along,
// stably, in one scatter pass: when the keys are dense this beats Radix's
// passes.
func Counting(keys, refs, tk, tr []uint64, counts []uint32) ([]uint64, []uint64) {
	clear(counts)
	for _, k := range keys {
		counts[k]++
	}
	sum := uint32(0)
	for i, c := range counts {
		counts[i] = sum
		sum += c
	}
	tk, tr = tk[:len(keys)], tr[:len(keys)]
	for i, k := range keys {
		j := counts[k]
		counts[k] = j + 1
		tk[j], tr[j] = k, refs[i]
	}
	return tk, tr
}
