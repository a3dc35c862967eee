package zdec

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// decodeStreamed decodes src, zstd frames whose headers carry no content
// size (a streaming encoder's), into own (when large enough) or a pooled
// buffer, of exactly usize bytes, the size the block header declares.
// DecodeAll cannot be told to stop there: a frame of a few KiB that decodes to gigabytes made it work
// through (and allocate for) all of it. Here a streaming decoder fills the
// buffer and stops at the first byte past it. Its history buffer is the
// frame's window, allocated up front, so the window is bounded: by the
// block's size, or streamWindow for a smaller block (streaming encoders
// declare their level's window whatever the input: klauspost's default
// 8 MiB, libzstd's 2-8 MiB for levels 3-19, for a 1 KiB block as for a
// 64 MiB one). It costs a decoder per block, which only such frames pay.
// streamWindow is the largest window accepted for a frame without content
// size in a block smaller than it.
const streamWindow = 8 << 20

func decodeStreamed(src []byte, usize int, own *Own) (*[]byte, error) {
	wnd := uint64(max(usize, streamWindow))
	d, err := zstd.NewReader(bytes.NewReader(src),
		zstd.WithDecoderConcurrency(1), // decodes in the caller's goroutine, no read-ahead
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(wnd),
		zstd.WithDecoderMaxWindow(wnd))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	buf := own.orPooled(usize)
	n, err := io.ReadFull(d, (*buf)[:usize])
	if err == nil {
		var one [1]byte
		var m int
		for m == 0 && err == nil {
			m, err = d.Read(one[:])
		}
		switch {
		case m > 0:
			err = fmt.Errorf("the zstd frames decode to more than the declared %d bytes", usize)
		case errors.Is(err, io.EOF):
			return buf, nil
		}
	} else if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("the zstd frames decode to %d bytes, the block header declares %d", n, usize)
	} else {
		err = decodeErr(err, usize)
	}
	own.putUnlessOwn(buf)
	return nil, err
}
