package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Append spells every value as strconv does: each power of ten and its
// neighbours, the largest value, and random values of every length.
func TestAppendMatchesStrconv(t *testing.T) {
	vals := []uint64{0, math.MaxUint64, math.MaxUint64 - 1}
	for p := uint64(1); p <= 1e19; p *= 10 {
		vals = append(vals, p-1, p, p+1)
		if p == 1e19 {
			break
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		vals = append(vals, rng.Uint64()>>rng.IntN(64))
	}
	for _, v := range vals {
		require.Equal(t, strconv.AppendUint([]byte("x"), v, 10), Append([]byte("x"), v), "%d", v)
	}
}

// Len counts the digits strconv writes.
func TestLenMatchesStrconv(t *testing.T) {
	for p := uint64(1); ; p *= 10 {
		for _, v := range []uint64{p - 1, p, p + 1} {
			require.Equal(t, len(strconv.FormatUint(v, 10)), Len(v), "%d", v)
		}
		if p == 1e19 {
			break
		}
	}
	require.Equal(t, 20, Len(math.MaxUint64))
}
