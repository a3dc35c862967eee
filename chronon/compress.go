package chronon

import (
	"sync"

	"github.com/chronon-sim/chronon-go/schema"
	"github.com/klauspost/compress/zstd"
)

// blockEncoders is what the tracer compresses with: one long-lived klauspost
// zstd encoder shared by every worker (EncodeAll is safe for concurrent use
// and the encoder's concurrency is set to the number of workers).
type blockEncoders struct {
	level int
	zs    *zstd.Encoder
}

// blockEncoder is one worker's view: the shared encoder plus any state a
// worker must not share.
type blockEncoder struct {
	*blockEncoders
}

func newEncoders(cfg config) (*blockEncoders, error) {
	e := &blockEncoders{level: cfg.level}
	if cfg.level == LevelNone {
		return e, nil
	}
	zs, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(cfg.level)),
		zstd.WithEncoderConcurrency(cfg.workers),
		zstd.WithWindowSize(max(cfg.blockSize, zstd.MinWindowSize)),
		zstd.WithEncoderCRC(false),   // the original writes no checksum; blocks carry their sizes
		zstd.WithSingleSegment(true), // decoders allocate exactly the block size
	)
	if err != nil {
		return nil, err
	}
	e.zs = zs
	return e, nil
}

func (e *blockEncoders) worker() *blockEncoder { return &blockEncoder{blockEncoders: e} }

// raw reports whether blocks are stored uncompressed.
func (e *blockEncoder) raw() bool { return e.zs == nil }

// encode appends src compressed to dst, or returns dst unchanged (plus src)
// when compression is off.
func (e *blockEncoder) encode(dst, src []byte, fixed bool) []byte {
	if e.zs == nil {
		return append(dst, src...)
	}
	return e.zs.EncodeAll(src, dst)
}

// Output buffers travel from a worker to the writer and back.
var bufPool sync.Pool

func (e *blockEncoder) getBuf() *[]byte {
	if b, ok := bufPool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, schema.BlockHeaderSize, 72<<10)
	return &b
}

func putBuf(b *[]byte) { bufPool.Put(b) }
