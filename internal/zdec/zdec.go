// Package zdec decodes the zstd data of a block into exactly the size its
// header declares, refusing what cannot be that size before allocating
// for it: a few bytes that declare 64 MiB cost nothing.
//
// Frames that carry their content size are decoded by one long-lived
// decoder shared by every reader of the process; frames without it (a
// streaming encoder's) are first bounded from their block headers, then
// decoded by a streaming decoder that stops at the declared size.
package zdec

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/schema"
)

// maxDecoded is the largest block decoded: the format's fixed limit, never
// a size read from a file.
const maxDecoded = schema.MaxBlockSize

var (
	once      sync.Once
	shared    *zstd.Decoder
	sharedErr error
	states    int // the decoder's states (WithDecoderConcurrency)
)

// Decoder returns the process's one long-lived zstd decoder. DecodeAll is
// safe for concurrent use: the decoder holds one state per goroutine that
// may decode at once (GOMAXPROCS, at least 4), refuses frames larger than
// the largest block, and (cap limit) never grows the buffer it decodes
// into.
func Decoder() (*zstd.Decoder, error) {
	once.Do(func() {
		states = max(runtime.GOMAXPROCS(0), 4)
		shared, sharedErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(states),
			zstd.WithDecoderMaxMemory(maxDecoded),
			zstd.WithDecoderMaxWindow(maxDecoded), // no block needs a longer history
			zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderLowmem(true))
	})
	return shared, sharedErr
}

var emptyDst [0]byte

// Own is a decode buffer a caller keeps across blocks (a windowed
// iteration decodes every block into one buffer of its own), taken from
// the pool only once a block's frames passed their checks, at least Size
// bytes. P is the buffer; the caller gives it back (bufpool.Put) when done.
type Own struct {
	P    *[]byte
	Size int
}

// orPooled returns own's buffer, grown to n bytes, or without own a pooled
// buffer.
func (own *Own) orPooled(n int) *[]byte {
	if own == nil {
		return bufpool.Get(n)
	}
	if own.P == nil || cap(*own.P) < n {
		own.P = bufpool.Get(max(n, own.Size))
		bufpool.DropBig() // the others of the blocks decoded before are idle
	}
	return own.P
}

func (own *Own) putUnlessOwn(buf *[]byte) {
	if own == nil || buf != own.P {
		bufpool.Put(buf)
	}
}

// Decode decodes src, a block's zstd data, into exactly usize bytes (the
// size the block header declares): into own's buffer when own is not nil,
// else into a pooled buffer returned in buf (the caller puts it back with
// bufpool.Put; buf is nil for an empty block). An error says why the data
// is not usize bytes of zstd; the caller names the block.
//
// An empty block (usize 0) must decode to nothing, skippable frames
// included: a zero-capacity destination with the cap limit makes the
// decoder refuse any output instead of allocating for it.
func Decode(src []byte, usize int, own *Own) (data []byte, buf *[]byte, err error) {
	dec, err := Decoder()
	if err != nil {
		return nil, nil, err
	}
	var zh zstd.Header
	if err := zh.Decode(src); err != nil {
		return nil, nil, fmt.Errorf("block data is not a zstd frame: %v", err)
	}
	// The frames must fill the data exactly: a frame whose checksum flag
	// was cleared ends 4 bytes early (its checksum left over), one whose
	// flag was set runs 4 bytes past. Their block headers say where they
	// end (3 bytes per zstd block: nothing beside decoding them).
	bound, err := Bound(src)
	if err != nil {
		return nil, nil, fmt.Errorf("the block's %d data bytes are not whole zstd frames: %v", len(src), err)
	}
	if zh.HasFCS && zh.FrameContentSize != uint64(usize) {
		return nil, nil, sizeErrorf("zstd frame holds %d bytes, the block header declares %d", zh.FrameContentSize, usize)
	}
	if usize == 0 {
		if _, err := dec.DecodeAll(src, emptyDst[:0:0]); err != nil {
			return nil, nil, fmt.Errorf("the zstd data of an empty block does not decode to nothing: %v", err)
		}
		return src[:0], nil, nil
	}
	if !zh.HasFCS {
		// The size is declared only by the block header: check that the
		// frames can hold that much before allocating for it.
		if bound < uint64(usize) {
			return nil, nil, sizeErrorf("the zstd frames cannot hold the declared %d bytes: they hold at most %d bytes", usize, bound)
		}
		if buf, err = decodeStreamed(src, usize, own); err != nil {
			return nil, nil, err
		}
		return (*buf)[:usize], buf, nil
	}
	buf = own.orPooled(usize)
	out, err := dec.DecodeAll(src, (*buf)[:0])
	if err != nil {
		own.putUnlessOwn(buf)
		return nil, nil, decodeErr(err, usize)
	}
	unpin(dec, usize)
	if len(out) != usize {
		own.putUnlessOwn(buf)
		return nil, nil, sizeErrorf("zstd frame decodes to %d bytes, the block header declares %d", len(out), usize)
	}
	return out, buf, nil
}

// ErrDeclaredSize is matched (errors.Is) by the errors of Decode that say,
// before decoding, that whole zstd frames (Bound found their ends) hold
// another size than the block header declares: the frame's recorded
// content size is another, or its blocks cannot hold that much. The
// header's uncompressed_size or the frame header is wrong (a flipped bit),
// which a cut cannot make. (Frames without a content size that decode to
// another size are not matched: telling costs the decode.)
var ErrDeclaredSize = errors.New("the zstd frames hold another size than the block header declares")

// sizeError is an error matching ErrDeclaredSize, worded by its caller.
type sizeError string

func (e sizeError) Error() string        { return string(e) }
func (e sizeError) Is(target error) bool { return target == ErrDeclaredSize }

func sizeErrorf(format string, args ...any) error { return sizeError(fmt.Sprintf(format, args...)) }

// decodeErr words an error of the zstd decoder for a block of usize bytes.
func decodeErr(err error, usize int) error {
	if errors.Is(err, zstd.ErrCRCMismatch) {
		return fmt.Errorf("%w: the zstd frame's content checksum does not match the %d bytes it decodes to", schema.ErrChecksum, usize)
	}
	return fmt.Errorf("zstd frame does not decode to the declared %d bytes: %w", usize, err)
}

// ContentSize returns the content size the zstd frame at the start of src
// records in its header, and false when src does not start with a frame
// that records one.
func ContentSize(src []byte) (uint64, bool) {
	var zh zstd.Header
	if len(src) < 4 || !isFrameStart(src) || zh.Decode(src) != nil || zh.Skippable || !zh.HasFCS {
		return 0, false
	}
	return zh.FrameContentSize, true
}
