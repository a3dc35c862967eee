package zrec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// XXH64 with seed 0 of the reference implementation's test strings, and of
// every length around the 32-byte stripes and the 8- and 4-byte tails (the
// libzstd tests check whole frames' checksums against libzstd's own).
func TestXXH64(t *testing.T) {
	for s, want := range map[string]uint64{
		"":    0xEF46DB3751D8E999,
		"a":   0xD24EC4F1A98C6E5B,
		"abc": 0x44BC2CF5AD770999,
		"Nobody inspects the spammish repetition": 0xFBCEA83C8A378BF1,
	} {
		require.Equal(t, want, xxh64([]byte(s)), "%q", s)
	}
	// Lengths 0..200 against a bytewise model built from the same rounds.
	b := randomBytes(200, 7)
	for n := 0; n <= len(b); n++ {
		require.Equal(t, xxh64Model(b[:n]), xxh64(b[:n]), "length %d", n)
	}
}

// xxh64Model is XXH64 (seed 0) written for clarity, not speed.
func xxh64Model(b []byte) uint64 {
	le := func(b []byte, n int) (v uint64) {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	rotl := func(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }
	round := func(acc, in uint64) uint64 { return rotl(acc+in*xxPrime2, 31) * xxPrime1 }
	var h uint64
	n := len(b)
	if n >= 32 {
		v := [4]uint64{xxInit1, xxPrime2, 0, xxInit4}
		for ; len(b) >= 32; b = b[32:] {
			for i := range v {
				v[i] = round(v[i], le(b[8*i:], 8))
			}
		}
		h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)
		for i := range v {
			h = (h^round(0, v[i]))*xxPrime1 + xxPrime4
		}
	} else {
		h = xxPrime5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h = rotl(h^round(0, le(b, 8)), 27)*xxPrime1 + xxPrime4
	}
	if len(b) >= 4 {
		h = rotl(h^le(b, 4)*xxPrime1, 23)*xxPrime2 + xxPrime3
		b = b[4:]
	}
	for _, c := range b {
		h = rotl(h^uint64(c)*xxPrime5, 11) * xxPrime1
	}
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	return h ^ h>>32
}
