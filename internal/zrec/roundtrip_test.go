package zrec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

var testDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))

// roundTrip encodes src with e, decodes with klauspost and compares.
func roundTrip(t testing.TB, e *Encoder, src []byte) []byte {
	t.Helper()
	prefix := []byte("prefix")
	frame := e.EncodeAll(src, append([]byte(nil), prefix...))
	require.True(t, bytes.HasPrefix(frame, prefix), "dst prefix clobbered")
	frame = frame[len(prefix):]
	require.LessOrEqual(t, len(frame), MaxEncodedSize(len(src)))
	got, err := testDecoder.DecodeAll(frame, nil)
	if err != nil {
		t.Fatalf("decode of %d-byte input (frame %d bytes): %v", len(src), len(frame), err)
	}
	if !bytes.Equal(got, src) {
		i := 0
		for i < len(got) && i < len(src) && got[i] == src[i] {
			i++
		}
		t.Fatalf("round trip mismatch: len %d vs %d, first difference at %d", len(got), len(src), i)
	}
	return frame
}

func TestRoundTripBasic(t *testing.T) {
	e := newTestEncoder()
	roundTrip(t, e, nil)
	roundTrip(t, e, []byte{})
	for n := 1; n <= 80; n++ {
		roundTrip(t, e, randomBytes(n, uint64(n)))
		roundTrip(t, e, make([]byte, n))
	}
	ev := appendEvent(nil, 1, 1, 2, 3, 0, nil)
	roundTrip(t, e, ev)
	roundTrip(t, e, append(ev, ev...))
}

func TestRoundTripW1(t *testing.T) {
	blocks, counts := w1Blocks(200_000, 16, 64<<10, 1)
	e := newTestEncoder()
	var raw, comp, events, n int
	for i, b := range blocks {
		if i%7 != 0 && testing.Short() {
			continue
		}
		f := roundTrip(t, e, b)
		raw += len(b)
		comp += min(len(f), len(b))
		events += counts[i]
		n++
	}
	perEvent := float64(comp+blockOverhead*n) / float64(events)
	t.Logf("W1: %d blocks, %d -> %d bytes, %.3f bytes/event", n, raw, comp, perEvent)
	// Guards the match finder: 6.39 when this was written; a lost match
	// or literal byte per event shows up here long before anywhere else.
	require.Less(t, perEvent, 6.6, "W1 compression ratio regressed")
}

func TestRoundTripSizes(t *testing.T) {
	e := newTestEncoder()
	inter := w1Interleaved(40_000, 16, 7)
	mixed := mixedBlock(12_000, 3)
	rnd := randomBytes(1<<20+17, 9)
	sizes := []int{1, 2, 3, 25, 26, 27, 33, 35, 100, 255, 256, 257, 1000, 1023, 1024, 1025, 4096,
		16383, 16384, 16385, 65535, 65536, 65791, 65792, 100_000, 131071, 131072, 131073,
		200_000, 262_144, 300_001, 524_288, 1 << 20}
	for _, n := range sizes {
		for name, src := range map[string][]byte{"w1": inter, "mixed": mixed, "random": rnd} {
			if n > len(src) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				roundTrip(t, e, src[:n])
				// Truncated events: drop bytes at the end and at the start.
				if n > 40 {
					roundTrip(t, e, src[:n-13])
					roundTrip(t, e, src[5:n])
				}
			})
		}
	}
}

func TestRoundTripCoverageInputs(t *testing.T) {
	e := newTestEncoder()
	for _, c := range coverageInputs() {
		t.Run(c.name, func(t *testing.T) {
			f := roundTrip(t, e, c.src)
			t.Logf("%d -> %d", len(c.src), len(f))
		})
	}
}

// TestEncoderReuse interleaves inputs of different shapes on one Encoder:
// no state may leak from one frame into the next.
func TestEncoderReuse(t *testing.T) {
	e := newTestEncoder()
	in := coverageInputs()
	for i := 0; i < 3*len(in); i++ {
		roundTrip(t, e, in[(i*7)%len(in)].src)
	}
}

// The writer takes a block's event count and cycle range from Stats instead
// of walking the block a second time.
func TestStatsDescribeTheBlock(t *testing.T) {
	var src []byte
	cycles := []uint64{7, 3, 99, 42}
	for _, c := range cycles {
		src = append(src, make([]byte, 26+4)...)
		ev := src[len(src)-30:]
		binary.LittleEndian.PutUint16(ev, 4)
		binary.LittleEndian.PutUint64(ev[2:], c)
		binary.LittleEndian.PutUint32(ev[10:], 1)
	}
	e := newTestEncoder()
	e.EncodeAll(src, nil)
	s, clean := e.Stats()
	require.True(t, clean)
	require.Equal(t, 4, s.Events)
	require.Equal(t, uint64(3), s.MinCycle)
	require.Equal(t, uint64(99), s.MaxCycle)

	e.EncodeAll(append(src, 1, 2, 3), nil) // a torn tail
	s, clean = e.Stats()
	require.False(t, clean)
	require.Equal(t, 4, s.Events)

	e.EncodeAll(nil, nil)
	s, clean = e.Stats()
	require.True(t, clean)
	require.Zero(t, s.Events+int(s.MinCycle)+int(s.MaxCycle))

	big := make([]byte, 0, 300<<10) // several zstd blocks
	for len(big)+30 <= cap(big) {
		big = append(big, src[:30]...)
	}
	e.EncodeAll(big, nil)
	s, clean = e.Stats()
	require.True(t, clean)
	require.Equal(t, len(big)/30, s.Events)
}

// newTestEncoder returns an encoder with the given options; they are valid.
func newTestEncoder(opts ...Option) *Encoder {
	e, err := NewEncoder(opts...)
	if err != nil {
		panic(err)
	}
	return e
}
