package chronon

import (
	"sync"

	"github.com/chronon-sim/chronon-go/internal/zrec"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/klauspost/compress/zstd"
)

// blockEncoders is what the tracer compresses with: one long-lived klauspost
// zstd encoder shared by every worker (EncodeAll is safe for concurrent use
// and the encoder's concurrency is set to the number of workers), and, at
// levels 1 to 5, the record-aware encoder (internal/zrec) for blocks whose
// events all have fixed-size formats.
//
// Why two: a generic zstd encoder hashes every byte position, which on this
// data caps it near 350 MB/s per core (level 3), below what a simulator
// emitting tens of millions of events per second produces. The record-aware
// encoder finds the same matches structurally (each event against the
// previous event of its format) at about twice the speed and the same or a
// better ratio than zstd level 3; it writes standard zstd frames. Events with
// strings carry text that may repeat anywhere in the block, which only a
// generic match finder sees, so their blocks go to klauspost.
type blockEncoders struct {
	level     int
	blockSize int
	zs        *zstd.Encoder
	recordZst bool // use internal/zrec for fixed-size blocks
}

// blockEncoder is one worker's view: the shared encoder plus the worker's
// own record-aware encoder (not safe for concurrent use).
type blockEncoder struct {
	*blockEncoders
	rec *zrec.Encoder
}

func newEncoders(cfg config) (*blockEncoders, error) {
	e := &blockEncoders{level: cfg.level, blockSize: cfg.blockSize, recordZst: cfg.level >= 1 && cfg.level <= 5}
	if cfg.level == LevelNone {
		return e, nil
	}
	zs, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(cfg.level)),
		zstd.WithEncoderConcurrency(cfg.workers),
		zstd.WithWindowSize(max(cfg.blockSize, zstd.MinWindowSize)),
		zstd.WithEncoderCRC(true),    // the content checksum: every decoder verifies it (internal/zrec writes it too)
		zstd.WithSingleSegment(true), // decoders allocate exactly the block size
	)
	if err != nil {
		return nil, err
	}
	e.zs = zs
	return e, nil
}

// fastLiteralLevel is the highest level at which the record-aware encoder
// stores literals raw unless Huffman coding saves at least 1/8 of them
// (zrec.WithLiteralMinGain(3)). On W1 that takes a quarter off compression
// time for 0.4 bytes/event; levels 4 and 5 code every block's literals.
const fastLiteralLevel = 3

func (e *blockEncoders) worker() (*blockEncoder, error) {
	w := &blockEncoder{blockEncoders: e}
	if e.recordZst {
		var opts []zrec.Option
		if e.level <= fastLiteralLevel {
			opts = append(opts, zrec.WithLiteralMinGain(3))
		}
		rec, err := zrec.NewEncoder(opts...)
		if err != nil {
			return nil, err
		}
		w.rec = rec
	}
	return w, nil
}

// raw reports whether blocks are stored uncompressed.
func (e *blockEncoder) raw() bool { return e.zs == nil }

// encode appends src compressed to dst, or returns dst unchanged (plus src)
// when compression is off.
func (e *blockEncoder) encode(dst, src []byte, fixed bool) []byte {
	switch {
	case e.zs == nil:
		return append(dst, src...)
	case fixed && e.rec != nil:
		return e.rec.EncodeAll(src, dst)
	default:
		return e.zs.EncodeAll(src, dst)
	}
}

// Output buffers travel from a worker to the writer and back.
var bufPool sync.Pool

func (e *blockEncoder) getBuf() *[]byte {
	if b, ok := bufPool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, schema.BlockHeaderSize, schema.BlockHeaderSize+zrec.MaxEncodedSize(e.blockSize))
	return &b
}

func putBuf(b *[]byte) { bufPool.Put(b) }
