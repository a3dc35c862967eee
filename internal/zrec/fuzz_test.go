package zrec

import (
	"bytes"
	"testing"
)

// FuzzEncodeRoundTrip checks that any input encodes to a frame that
// klauspost's decoder returns unchanged. Seeds are event blocks (so the
// fuzzer mutates realistic structure) and random bytes.
func FuzzEncodeRoundTrip(f *testing.F) {
	blocks, _ := w1Blocks(3000, 4, 4<<10, 1)
	f.Add(blocks[0])
	f.Add(blocks[1])
	f.Add(mixedBlock(200, 1))
	f.Add(w1Interleaved(100, 3, 2))
	f.Add(randomBytes(500, 3))
	f.Add([]byte{})
	f.Add(appendEvent(nil, 1, 1, 1, 1, 0, nil))
	var same []byte
	for i := 0; i < 50; i++ {
		same = appendEvent(same, 9, 4, 0, 0, 1, []byte{1, 2})
	}
	f.Add(same)
	e := newTestEncoder()
	f.Fuzz(func(t *testing.T, src []byte) {
		frame := e.EncodeAll(src, nil)
		if len(frame) > MaxEncodedSize(len(src)) {
			t.Fatalf("frame %d bytes > bound %d", len(frame), MaxEncodedSize(len(src)))
		}
		got, err := testDecoder.DecodeAll(frame, nil)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !bytes.Equal(got, src) {
			t.Fatalf("round trip mismatch (%d vs %d bytes)", len(got), len(src))
		}
	})
}
