package zrec

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// The estimate separates what W1 produces: decode-event literals (random
// argument bytes, Huffman saves ~8%) stay raw at shift 3, fetch-event
// literals (a taken flag, a few pc bytes: ~33%) are coded.
func TestHuffmanPaysDecision(t *testing.T) {
	require.False(t, huffmanPays(randomBytes(20_000, 1), 3), "uniform random bytes")
	require.False(t, huffmanPays(randomBytes(20_000, 1), 6), "uniform random bytes, at any gain")
	skewed := make([]byte, 20_000)
	for i, b := range randomBytes(20_000, 2) {
		skewed[i] = b & 0x0f // 4 bits of entropy in 8
	}
	require.True(t, huffmanPays(skewed, 3))
	require.True(t, huffmanPays(skewed, 2), "saves more than a quarter")
	require.False(t, huffmanPays(skewed, 1), "but not half (the table costs)")

	// 7/8 random bytes plus 1/8 zeros: ~10% gain, between the two shifts.
	mixed := randomBytes(20_000, 3)
	for i := 0; i < len(mixed); i += 8 {
		mixed[i] = 0
	}
	require.False(t, huffmanPays(mixed, 3))
	require.True(t, huffmanPays(mixed, 6))
}

func TestWithLiteralMinGainValidates(t *testing.T) {
	for _, bad := range []int{-1, 9} {
		_, err := NewEncoder(WithLiteralMinGain(bad))
		require.ErrorContains(t, err, "not 0..8")
	}
	e, err := NewEncoder(WithLiteralMinGain(3))
	require.NoError(t, err)
	require.EqualValues(t, 3, e.litGainShift)
}

// With the option every input still round-trips; on W1 decode blocks the
// literals go raw (the frame grows a little), on fetch blocks they do not.
func TestRoundTripFastLiterals(t *testing.T) {
	fast, full := newTestEncoder(WithLiteralMinGain(3)), newTestEncoder()
	for _, c := range coverageInputs() {
		t.Run(c.name, func(t *testing.T) { roundTrip(t, fast, c.src) })
	}
	blocks, _ := w1Blocks(50_000, 16, 64<<10, 1)
	var fetch, decode []byte
	for _, b := range blocks { // a unit's blocks hold one format: 1 fetch, 2 decode
		switch binary.LittleEndian.Uint32(b[10:]) {
		case 1:
			fetch = b
		case 2:
			decode = b
		}
	}
	require.NotNil(t, fetch)
	require.NotNil(t, decode)
	require.Equal(t, len(roundTrip(t, full, fetch)), len(roundTrip(t, fast, fetch)), "fetch literals still Huffman coded")
	require.Greater(t, len(roundTrip(t, fast, decode)), len(roundTrip(t, full, decode)), "decode literals stored raw")
}
