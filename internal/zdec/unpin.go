package zdec

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// unpinAbove is the decoded size from which a decode unpins its buffer.
const unpinAbove = 1 << 20

var (
	tinyOnce  sync.Once
	tinyFrame []byte
)

// unpin makes the shared decoder let go of a buffer it just decoded usize
// bytes into. Each of the decoder's states keeps a slice of the last
// buffer it decoded into until its next decode: with pooled 64 MiB blocks
// freed after use, its idle states pinned one such block each (4 x 64 MiB
// beyond a reader's memory budget, measured on a SQL scan). The states are
// taken in turn, so decoding a tiny frame once per state moves every state
// that decoded before onto a buffer of a few bytes. A failed tiny decode
// changes nothing: the pinning is only memory.
func unpin(dec *zstd.Decoder, usize int) {
	if usize < unpinAbove {
		return
	}
	tinyOnce.Do(func() {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		if err != nil {
			return
		}
		// Repeats, so the frame holds a compressed block with sequences:
		// a raw or RLE block does not replace the state's slice.
		tinyFrame = enc.EncodeAll(bytes.Repeat([]byte("chronon-"), 32), nil)
		enc.Close()
	})
	if tinyFrame == nil {
		return
	}
	var scratch [512]byte
	for range states {
		dec.DecodeAll(tinyFrame, scratch[:0])
	}
}
