package zrec_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/internal/zrec"
	"github.com/chronon-sim/chronon-go/schema"
)

// The blocks the writer hands the encoder: a workload written by chronon
// with compression off, read back block by block. Exactly what chronon
// compresses, per unit, 64 KiB at a time.
var workloadBlocks struct {
	sync.Mutex
	m map[string]blockSet
}

type blockSet struct {
	blocks [][]byte
	events int
	raw    int
}

func blocksOf(tb testing.TB, name string, events int) blockSet {
	workloadBlocks.Lock()
	defer workloadBlocks.Unlock()
	if s, ok := workloadBlocks.m[name]; ok {
		return s
	}
	dir, err := os.MkdirTemp("", "zrec-bench")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name+".ctrace")
	if _, err := workload.Run(name, path, events, 16, 1, chronon.WithCompression(false),
		chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false)); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := schema.ParseHeader(b, int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	var s blockSet
	for off := int(h.FirstBlockOffset); off < int(h.FooterOffset); {
		bh, ok := schema.DecodeBlockHeader(b[off:])
		if !ok {
			tb.Fatalf("%s: bad block header at %d", path, off)
		}
		data := b[off+schema.BlockHeaderSize : off+schema.BlockHeaderSize+int(bh.CompressedSize)]
		off += schema.BlockHeaderSize + int(bh.CompressedSize)
		if bh.EventCount == 0 || !bh.Raw() {
			continue // a schema frame
		}
		s.blocks = append(s.blocks, data)
		s.events += int(bh.EventCount)
		s.raw += len(data)
	}
	if workloadBlocks.m == nil {
		workloadBlocks.m = map[string]blockSet{}
	}
	workloadBlocks.m[name] = s
	return s
}

// BenchmarkEncodeWorkloads compresses the writer's own blocks of 2M events
// of W1 and of the pipeline workload, as chronon's level 3 does (literals
// Huffman coded only when that saves at least 1/8 of them).
//
//	go test -run NONE -bench EncodeWorkloads -benchtime 5x ./internal/zrec
func BenchmarkEncodeWorkloads(b *testing.B) {
	for _, name := range []string{"w1", "pipeline"} {
		b.Run(name, func(b *testing.B) {
			s := blocksOf(b, name, 2_000_000)
			e, err := zrec.NewEncoder(zrec.WithLiteralMinGain(3))
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]byte, 0, zrec.MaxEncodedSize(64<<10))
			var stored int
			b.SetBytes(int64(s.raw))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				stored = 0
				for _, blk := range s.blocks {
					dst = e.EncodeAll(blk, dst[:0])
					stored += min(len(dst), len(blk)) + schema.BlockHeaderSize
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.events), "ns/event")
			b.ReportMetric(float64(stored)/float64(s.events), "bytes/event")
		})
	}
}
