package zrec

import (
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const (
	benchEvents    = 2_000_000
	benchUnits     = 16
	benchBlockSize = 64 << 10
	blockOverhead  = 28 // per-block header bytes counted in bytes/event
)

var benchData struct {
	once   sync.Once
	blocks [][]byte
	events int
	raw    int
}

func w1BenchBlocks() ([][]byte, int, int) {
	benchData.once.Do(func() {
		blocks, counts := w1Blocks(benchEvents, benchUnits, benchBlockSize, 1)
		benchData.blocks = blocks
		for i, b := range blocks {
			benchData.events += counts[i]
			benchData.raw += len(b)
		}
	})
	return benchData.blocks, benchData.events, benchData.raw
}

// BenchmarkEncode compresses the per-unit 64 KiB blocks of 2M W1 events
// with this package and, for comparison, with klauspost's generic encoder.
func BenchmarkEncode(b *testing.B) {
	blocks, events, raw := w1BenchBlocks()
	run := func(b *testing.B, enc func(src, dst []byte) []byte) {
		b.SetBytes(int64(raw))
		dst := make([]byte, 0, MaxEncodedSize(benchBlockSize))
		var stored int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			stored = 0
			for _, blk := range blocks {
				dst = enc(blk, dst[:0])
				stored += min(len(dst), len(blk)) + blockOverhead
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(stored)/float64(events), "bytes/event")
	}
	b.Run("zrec", func(b *testing.B) {
		e := newTestEncoder()
		run(b, e.EncodeAll)
	})
	b.Run("zrec-fastlits", func(b *testing.B) {
		e := newTestEncoder(WithLiteralMinGain(3))
		run(b, e.EncodeAll)
	})
	for _, lvl := range []zstd.EncoderLevel{zstd.SpeedDefault, zstd.SpeedFastest} {
		b.Run("klauspost-"+lvl.String(), func(b *testing.B) {
			z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderCRC(false),
				zstd.WithSingleSegment(true), zstd.WithEncoderConcurrency(1))
			if err != nil {
				b.Fatal(err)
			}
			run(b, z.EncodeAll)
		})
	}
}

// BenchmarkStages times the encoder's stages separately on the W1 blocks
// (each includes the stages before it, except "match").
func BenchmarkStages(b *testing.B) {
	blocks, events, raw := w1BenchBlocks()
	e := newTestEncoder()
	dst := make([]byte, 0, MaxEncodedSize(benchBlockSize))
	stage := func(name string, f func(blk []byte)) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(raw))
			for i := 0; i < b.N; i++ {
				for _, blk := range blocks {
					f(blk)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
		})
	}
	stage("match", func(blk []byte) {
		e.resetFrame()
		e.findSequences(blk, 0)
	})
	stage("match+literals", func(blk []byte) {
		e.resetFrame()
		e.findSequences(blk, 0)
		dst = e.appendLiterals(dst[:0], e.lits)
	})
	stage("match+sequences", func(blk []byte) {
		e.resetFrame()
		e.findSequences(blk, 0)
		e.appendSequences(dst[:0], len(blk)-1)
	})
	stage("all", func(blk []byte) { dst = e.EncodeAll(blk, dst[:0]) })
}

// BenchmarkXXH64 is the content checksum over one 64 KiB block.
func BenchmarkXXH64(b *testing.B) {
	src := randomBytes(64<<10, 1)
	b.SetBytes(int64(len(src)))
	var h uint64
	for i := 0; i < b.N; i++ {
		h += xxh64(src)
	}
	sink = h
}

var sink uint64
