package zrec

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// litType is the literals section type appendLiterals chooses for lits
// with WithLiteralMinGain(shift).
func litType(shift int, lits []byte) uint8 {
	e := newTestEncoder(WithLiteralMinGain(shift))
	return e.appendLiterals(make([]byte, 0, len(lits)+blockSlack), lits)[0] & 3
}

// The exact size separates what W1 produces: decode-event literals (random
// argument bytes, Huffman saves ~8%) stay raw at shift 3, fetch-event
// literals (a taken flag, a few pc bytes: ~33%) are coded.
func TestHuffmanPaysDecision(t *testing.T) {
	require.EqualValues(t, litRaw, litType(3, randomBytes(20_000, 1)), "uniform random bytes")
	require.EqualValues(t, litRaw, litType(6, randomBytes(20_000, 1)), "uniform random bytes, at any gain")
	require.EqualValues(t, litRaw, litType(0, randomBytes(20_000, 1)), "uniform random bytes, with any saving")
	skewed := make([]byte, 20_000)
	for i, b := range randomBytes(20_000, 2) {
		skewed[i] = b & 0x0f // 4 bits of entropy in 8
	}
	require.EqualValues(t, litCompressed, litType(3, skewed))
	require.EqualValues(t, litCompressed, litType(2, skewed), "saves more than a quarter")
	require.EqualValues(t, litRaw, litType(1, skewed), "but not half (the table costs)")

	// 7/8 random bytes plus 1/8 zeros: ~10% gain, between the two shifts.
	mixed := randomBytes(20_000, 3)
	for i := 0; i < len(mixed); i += 8 {
		mixed[i] = 0
	}
	require.EqualValues(t, litRaw, litType(3, mixed))
	require.EqualValues(t, litCompressed, litType(6, mixed))
	require.EqualValues(t, litCompressed, litType(0, mixed))
	require.EqualValues(t, litRLE, litType(3, make([]byte, 100)), "one value")
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

// sortByCount orders by count, ties by symbol, as a comparison sort of the
// keys does, for counts of one, two and three bytes.
func TestSortByCount(t *testing.T) {
	for _, maxCount := range []uint32{200, 60_000, 130_000} {
		var keys, tmp [256]uint32
		r := splitmix64(maxCount)
		n := 0
		for s := range 256 {
			if c := uint32(r.next() % uint64(maxCount+1)); c != 0 {
				keys[n] = c<<8 | uint32(s)
				n++
			}
		}
		want := slices.Clone(keys[:n])
		slices.Sort(want)
		sortByCount(keys[:n], tmp[:n], maxCount)
		require.Equal(t, want, keys[:n], "counts up to %d", maxCount)
	}
}

// The sample only ever sends to raw literals that the full count would
// have stored raw too: over literal sets from uniform to skewed, at every
// gain shift, whenever samplePays says no, appendCounted (no sample)
// writes raw literals. And it does say no for random bytes.
func TestSampleNeverStoresRawWhatWouldCode(t *testing.T) {
	r := splitmix64(11)
	skipped := 0
	for trial := range 300 {
		n := 4*litSample + int(r.next()%40000)
		lits := make([]byte, n)
		alphabet := 2 + r.next()%255
		peak := r.next() % 100 // percent of the literals that are one value
		for i := range lits {
			if r.next()%100 < peak {
				lits[i] = 7
			} else {
				lits[i] = byte(r.next() % alphabet)
			}
		}
		for shift := 1; shift <= 6; shift++ {
			e := newTestEncoder(WithLiteralMinGain(shift))
			if e.huff.samplePays(lits, n>>shift) {
				continue
			}
			skipped++
			out := e.appendCounted(make([]byte, 0, n+blockSlack), lits)
			require.EqualValues(t, litRaw, out[0]&3, "trial %d, shift %d: %d literals, alphabet %d, peak %d%%: the sample said raw, the count codes them", trial, shift, n, alphabet, peak)
		}
	}
	require.Positive(t, skipped)
	e := newTestEncoder(WithLiteralMinGain(3))
	require.False(t, e.huff.samplePays(randomBytes(20_000, 4), 20_000>>3), "random bytes")
}

// entropyBits is a lower bound of the literals' entropy, and so of any
// Huffman code's size (the early raw decision relies on it), and a close
// one: over histograms from a single dominant value to uniform, small and
// large (counts past the exact table), it is never above the entropy
// computed in floating point nor above the bits of the code lengths()
// builds, and at most 0.012 bits a literal (plus one) below.
func TestEntropyBitsBoundsHuffman(t *testing.T) {
	r := splitmix64(5)
	for trial := range 500 {
		n := 32 + int(r.next()%(maxBlockSize-32))
		alphabet := 2 + r.next()%255
		peak := r.next() % 100
		lits := make([]byte, n)
		for i := range lits {
			if r.next()%100 < peak {
				lits[i] = 200
			} else {
				lits[i] = byte(r.next() % alphabet)
			}
		}
		var h huffScratch
		total, _, distinct := h.histogram(lits)
		if distinct < 2 {
			continue
		}
		var exact float64
		for _, c := range h.count[0] {
			if c != 0 {
				exact += float64(c) * math.Log2(float64(n)/float64(c))
			}
		}
		got := h.entropyBits(total)
		huff, _ := h.lengths(total, distinct)
		require.LessOrEqual(t, float64(got), exact, "trial %d: %d literals, alphabet %d, peak %d%%", trial, n, alphabet, peak)
		require.LessOrEqual(t, got, huff, "trial %d: above the Huffman code's bits", trial)
		require.GreaterOrEqual(t, float64(got), exact-0.012*float64(n)-1, "trial %d: %d literals, alphabet %d, peak %d%%: %d bits, entropy %.1f", trial, n, alphabet, peak, got, exact)
	}
}

// appendStream's unchecked loop, in assembly where this build and CPU have
// it (huffLoop) and in Go, writes exactly what the checked one does, for
// every length mod 4 and skews from one dominant value to uniform, and an
// out without the room it assumes takes the checked loop.
func TestAppendStreamMatchesChecked(t *testing.T) {
	bmi2 := hasBMI2
	defer func() { hasBMI2 = bmi2 }()
	for _, hasBMI2 = range []bool{bmi2, false} {
		appendStreamMatchesChecked(t)
	}
}

func appendStreamMatchesChecked(t *testing.T) {
	r := splitmix64(9)
	coded := 0
	for trial := range 300 {
		n := 32 + int(r.next()%5000)
		alphabet := 2 + r.next()%255
		peak := r.next() % 100
		lits := make([]byte, n)
		for i := range lits {
			if r.next()%100 < peak {
				lits[i] = 3
			} else {
				lits[i] = byte(r.next() % alphabet)
			}
		}
		e := newTestEncoder()
		if e.appendCounted(make([]byte, 0, n+blockSlack), lits)[0]&3 != litCompressed {
			continue // no code built
		}
		coded++
		h := &e.huff
		prefix := []byte{0xAA, 0xBB}
		want := h.appendStreamChecked(append(make([]byte, 0, 2*n+64), prefix...), lits)
		got := h.appendStream(append(make([]byte, 0, 2*n+64), prefix...), lits)
		require.Equal(t, want, got, "trial %d: %d literals, alphabet %d, peak %d%% (BMI2 %v)", trial, n, alphabet, peak, hasBMI2)
		tight := append(make([]byte, 0, len(want)+8), prefix...)
		require.Equal(t, want, h.appendStream(tight, lits), "trial %d: tight out", trial)
	}
	require.Greater(t, coded, 100)
}
