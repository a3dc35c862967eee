package tracefile

import (
	"fmt"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/zdec"
)

// AppendBlock appends the uncompressed bytes of block i (the i-th of
// Blocks, file order) to dst and returns the result, checked as an
// iteration checks them: the block's checksum when it has one, the inline
// header agrees with the index, a zstd
// frame decodes to the declared size, the events fill the block, are as
// many as declared and lie in its cycle range. The bytes are the block's
// events back to back as stored ([args_size][record][args],
// schema.DecodeEvent), in file order. A compressed block is decoded
// straight into dst's spare capacity (grown when short), so a caller that
// keeps the bytes pays no copy beyond the decoding. Tools that compare or
// copy whole blocks (trace_reader diff) use it instead of an iteration,
// which makes an Event of every event.
func (f *File) AppendBlock(dst []byte, i int) (_ []byte, err error) {
	if !f.RLock() {
		return dst, ErrClosed
	}
	defer f.RUnlock()
	defer f.Guard(&err, PanicOnFault())
	if i < 0 || i >= f.blocks.len() {
		return dst, fmt.Errorf("%s: no block %d (the file has %d)", f.path, i, f.blocks.len())
	}
	b := f.blocks.at(int32(i))
	if err := f.checkBlock(&b); err != nil {
		return dst, err
	}
	start := len(dst)
	src := f.data[PayloadOff(&b):BlockEnd(&b)]
	if IsRaw(&b) {
		dst = append(dst, src...)
	} else {
		usize := int(b.UncompressedSize)
		dec, err := zdec.Decoder()
		if err != nil {
			return dst, err
		}
		dst = slices.Grow(dst, usize)
		out, err := dec.DecodeAll(src, dst)
		if err != nil || len(out)-start != usize {
			// BlockBytes words the error as an iteration does.
			_, buf, berr := f.BlockBytes(&b)
			if buf != nil {
				bufpool.Put(buf)
			}
			if berr == nil {
				berr = formatErr(f.path, BlockSection(int(b.Index)), PayloadOff(&b), "zstd frame does not decode to the declared %d bytes: %v", usize, err)
			}
			return dst, berr
		}
		dst = out
	}
	var bd Decoded
	if err := f.ScanEvents(&b, dst[start:], nil, &bd); err != nil {
		return dst[:start], err
	}
	return dst, nil
}
