//go:build amd64 && !noasm

package zrec

import (
	"bytes"
	"math/rand"
	"testing"
)

// encodeBoth encodes src with the assembly match loop and with the Go loop
// alone, with fresh encoders, and fails unless the frames are identical.
func encodeBoth(t testing.TB, name string, src []byte, opts ...Option) {
	t.Helper()
	defer func() { useMatchAsm = true }()
	var frames [2][]byte
	for i, asm := range []bool{true, false} {
		useMatchAsm = asm
		frames[i] = newTestEncoder(opts...).EncodeAll(src, nil)
	}
	if !bytes.Equal(frames[0], frames[1]) {
		t.Fatalf("%s (%d bytes): the assembly match loop wrote a %d-byte frame, the Go loop %d bytes",
			name, len(src), len(frames[0]), len(frames[1]))
	}
}

// TestMatchAsmMatchesGo: the assembly match loop finds exactly the Go
// loop's sequences (the frames are byte for byte the same) on every
// coverage input, W1 blocks, interleaved formats, long literal runs and
// extra bits, and on thousands of random mutations of event blocks.
func TestMatchAsmMatchesGo(t *testing.T) {
	inputs := coverageInputs()
	blocks, _ := w1Blocks(40_000, 16, 64<<10, 5)
	for _, b := range blocks {
		inputs = append(inputs, namedInput{"w1", b})
	}
	inputs = append(inputs, namedInput{"extras-31", longExtras(32, 20000)}, namedInput{"extras-41", longExtras(3000, 40000)},
		namedInput{"inter-3", w1Interleaved(20_000, 3, 9)}, namedInput{"mixed", mixedBlock(5000, 4)})
	for _, in := range inputs {
		encodeBoth(t, in.name, in.src)
		encodeBoth(t, in.name+"-fastlits", in.src, WithLiteralMinGain(3))
	}
	seeds := [][]byte{blocks[0], blocks[1], w1Interleaved(300, 5, 2), mixedBlock(300, 3)}
	r := rand.New(rand.NewSource(1))
	mutations := 3000
	if raceEnabled {
		mutations = 300 // 67 s under the race detector; make test's stage 5 runs all 3000 without it
	}
	for i := 0; i < mutations; i++ {
		src := bytes.Clone(seeds[r.Intn(len(seeds))])
		for m := r.Intn(6); m >= 0; m-- {
			switch j := r.Intn(len(src)); r.Intn(4) {
			case 0:
				src[j] = byte(r.Intn(256))
			case 1:
				src[j] ^= 1 << r.Intn(8)
			case 2:
				src = src[:j]
			default:
				src = append(src[:j], src[min(len(src), j+r.Intn(40)):]...)
			}
			if len(src) == 0 {
				break
			}
		}
		encodeBoth(t, "mutation", src)
	}
}

// FuzzMatchAsmMatchesGo: on any input the assembly match loop and the Go
// loop write the same frame (the round trip itself is FuzzEncodeRoundTrip's).
func FuzzMatchAsmMatchesGo(f *testing.F) {
	blocks, _ := w1Blocks(3000, 4, 4<<10, 1)
	f.Add(blocks[0])
	f.Add(w1Interleaved(200, 3, 2))
	f.Add(mixedBlock(200, 1))
	f.Add(longExtras(32, 300))
	f.Fuzz(func(t *testing.T, src []byte) {
		encodeBoth(t, "fuzz", src)
	})
}
