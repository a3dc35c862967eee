package zrec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Literals often come in a period: every event of a block leaves the same
// few bytes unmatched. A sample taken every len/litSample literals
// aliases with such a period when the step is a multiple of it, and sees
// one phase of it only: it judged literals where one byte in four is
// random and the rest take two values by that random byte alone, and
// stored them raw where Huffman coding saves 40%. Over periods 2 to 48,
// every phase and steps that are multiples of the period, the sample must
// only send to raw what the full count would store raw (as
// TestSampleNeverStoresRawWhatWouldCode asks of literals without a period).
func TestSampleSeesPeriodicLiterals(t *testing.T) {
	r := splitmix64(24)
	checked := 0
	for _, period := range []int{2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48} {
		for _, m := range []int{1, 2, 3} {
			n := litSample * period * m // the step, n/litSample, is m periods
			if n < 4*litSample || n > maxBlockSize {
				continue
			}
			for phase := 0; phase < period; phase++ {
				lits := make([]byte, n)
				for i := range lits {
					if i%period == phase {
						lits[i] = byte(r.next())
					} else {
						lits[i] = byte(1 + i%period*2 + (i/period)%2) // two values per position
					}
				}
				for shift := 1; shift <= 4; shift++ {
					e := newTestEncoder(WithLiteralMinGain(shift))
					if e.huff.samplePays(lits, n>>shift) {
						continue
					}
					checked++
					out := e.appendCounted(make([]byte, 0, n+blockSlack), lits)
					require.EqualValues(t, litRaw, out[0]&3,
						"period %d, phase %d, %d literals, shift %d: the sample said raw, the count codes them (%d bytes)",
						period, phase, n, shift, len(out))
				}
			}
		}
	}
	t.Logf("%d raw decisions of the sample checked against the count", checked)
}

// The same at the encoder: a block of 4-byte-argument events whose third
// byte is random and the others alternate between two values leaves four
// literals an event; the fast-literals encoder (levels 1-3 of the writer)
// must not write it much larger than the one that always counts.
func TestFastLiteralsPeriodicBlock(t *testing.T) {
	r := splitmix64(3)
	var src []byte
	for i := 0; len(src)+30 <= maxBlockSize; i++ {
		a := []byte{byte(3 + i%2), byte(5 + i%2), byte(r.next()), byte(7 + i%2)}
		src = appendEvent(src, 100, 5, 1, 1, 1, a)
	}
	fast := newTestEncoder(WithLiteralMinGain(3)).EncodeAll(src, nil)
	full := newTestEncoder().EncodeAll(src, nil)
	got, err := testDecoder.DecodeAll(fast, nil)
	require.NoError(t, err)
	require.Equal(t, src, got)
	require.LessOrEqual(t, len(fast), len(full)*105/100, "fast literals %d bytes, counted %d", len(fast), len(full))
}
