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

// worker makes a worker's encoder, whose scratch comes from mem (outside
// the Go heap: offheap.go), freed when the tracer closes.
func (e *blockEncoders) worker(mem *offHeap) (*blockEncoder, error) {
	w := &blockEncoder{blockEncoders: e}
	if e.recordZst {
		opts := []zrec.Option{zrec.WithScratch(mem.alloc, mem.free)}
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

// blockBufs are the buffers compressed blocks travel in from a worker to
// the writer and back, reused for the tracer's life and unmapped at Close
// (offheap.go). Each holds the largest block the tracer can make; only the
// pages a block touches are resident, and a block is mostly far smaller
// than its chunk.
type blockBufs struct {
	mem  offHeap
	mu   sync.Mutex
	free []*[]byte
	size int // capacity of each buffer
}

// blockBufSize is the capacity blockBufs gives a buffer: a block header
// and the compressed form of the largest chunk, a block or one event.
func blockBufSize(blockSize int) int {
	return schema.BlockHeaderSize + zrec.MaxEncodedSize(max(blockSize, schema.EventHeaderSize+0xFFFF))
}

// get returns a buffer holding room for a block header.
func (p *blockBufs) get() *[]byte {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		*b = (*b)[:schema.BlockHeaderSize]
		return b
	}
	p.mu.Unlock()
	b := p.mem.alloc(p.size)[:schema.BlockHeaderSize]
	return &b
}

// put hands a buffer get gave back for reuse.
func (p *blockBufs) put(b *[]byte) {
	p.mu.Lock()
	p.free = append(p.free, b)
	p.mu.Unlock()
}

// freeAll unmaps every buffer: the pipeline has stopped (Close).
func (p *blockBufs) freeAll() {
	p.mu.Lock()
	p.free = nil
	p.mu.Unlock()
	p.mem.freeAll()
}
