package mmapio

import (
	"bytes"
	"errors"
	"math"
	"sync"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/schema"
)

// footerBase is a real file whose footer FuzzFooterEntries replaces.
var footerBase = sync.OnceValues(func() ([]byte, *schema.Footer) {
	b, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(400, 4, 11), ctracetest.Options{BlockSize: 1024, Compress: true, PerUnit: true})
	if err != nil {
		panic(err)
	}
	h, _ := schema.DecodeHeader(b)
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	if err != nil {
		panic(err)
	}
	return b, f
})

// footerFromRecipe builds a structurally valid footer around the real
// blocks of footerBase, as recipe says: how many entries, which block each
// points at and how its fields are bent (duplicates, overlaps, out of
// order, wrong counts, size bombs), and the totals (consistent or not). The
// bytes are a recipe rather than the file so the fuzzer reaches the
// footer's semantics instead of its FlatBuffers framing.
func footerFromRecipe(recipe []byte) []byte {
	base, good := footerBase()
	next := func() byte {
		if len(recipe) == 0 {
			return 0
		}
		c := recipe[0]
		recipe = recipe[1:]
		return c
	}
	f := &schema.Footer{CreatedTimestamp: good.CreatedTimestamp, UnitStats: good.UnitStats}
	n := int(next()) % (2*len(good.Blocks) + 1)
	if len(recipe) == 0 {
		n = len(good.Blocks) // the identity: the real footer
	}
	for i := range n {
		pick, how, arg := next(), next(), next()
		b := good.Blocks[i%len(good.Blocks)]
		if pick != 0 {
			b = good.Blocks[int(pick)%len(good.Blocks)]
		}
		b.Index = uint32(i)
		switch how % 10 {
		case 1:
			b.Index = uint32(arg)
		case 2:
			b.EventCount += uint32(int8(arg))
		case 3:
			b.DataOffset += uint64(int8(arg))
		case 4:
			b.UncompressedSize = schema.MaxBlockSize >> (arg % 8) // a decompression bomb's claim
		case 5:
			b.CompressedSize += uint32(int8(arg))
		case 6:
			b.MinCycle -= uint64(arg)
		case 7:
			b.MaxCycle += uint64(arg)
		case 8:
			b.Units = nil
		}
		f.Blocks = append(f.Blocks, b)
		f.TotalEvents += uint64(b.EventCount)
		if i == 0 || b.MinCycle < f.MinCycle {
			f.MinCycle = b.MinCycle
		}
		f.MaxCycle = max(f.MaxCycle, b.MaxCycle)
	}
	switch t := next(); t % 5 {
	case 1:
		f.TotalEvents = math.MaxUint64
	case 2:
		f.TotalEvents += uint64(int8(next()))
	case 3:
		f.MinCycle += uint64(next())
	case 4:
		f.MaxCycle -= uint64(next())
	}
	h, _ := schema.DecodeHeader(base)
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	out := append(bytes.Clone(base[:h.FooterOffset]), foot...)
	h.FooterSize = uint64(len(foot))
	copy(out, schema.AppendHeader(nil, h))
	return out
}

// checkFooterFile opens b: either a clean error, or a reader whose events
// are those of its blocks, each block once.
func checkFooterFile(t *testing.T, b []byte, opts ...Option) *Reader {
	r, err := OpenBytes("fuzz.ctrace", b, append(opts, withDecoders(2), withSegmentBytes(4096))...)
	if err != nil {
		var fe *schema.FormatError
		if !errors.As(err, &fe) || fe.File != "fuzz.ctrace" || fe.Section == "" {
			t.Fatalf("error without file and section: %v", err)
		}
		return nil
	}
	blocks := r.Blocks()
	var declared uint64
	end := int64(0)
	for i := range blocks {
		if tracefile.HeaderOff(&blocks[i]) < end {
			t.Fatalf("block %d at byte %d overlaps the one before (ends at %d): %s", i, blocks[i].DataOffset, end, r.Status())
		}
		end = tracefile.BlockEnd(&blocks[i])
		declared += uint64(blocks[i].EventCount)
	}
	if declared != r.Status().Events {
		t.Fatalf("status says %d events, blocks %d", r.Status().Events, declared)
	}
	if f := r.Footer(); f != nil && f.TotalEvents != declared {
		t.Fatalf("footer total_events %d accepted for blocks of %d", f.TotalEvents, declared)
	}
	n := uint64(0)
	for range r.Events(Query{}) {
		n++
	}
	if err := r.Err(); err != nil {
		var fe *schema.FormatError
		if !errors.As(err, &fe) || fe.File != "fuzz.ctrace" || fe.Section == "" {
			t.Fatalf("iteration error without file and section: %v", err)
		}
	} else if n != declared {
		t.Fatalf("iterated %d events, the blocks declare %d", n, declared)
	}
	return r
}

// FuzzFooterEntries builds footers around real blocks from a recipe and
// checks that Open refuses them cleanly or reads each block once with the
// counts its blocks hold; with WithRepair the file always opens, and a
// footer it rejects gives way to the block walk, which finds all 400
// events.
func FuzzFooterEntries(f *testing.F) {
	f.Add([]byte{})                                         // the real footer
	f.Add([]byte{3, 1, 0, 0, 2, 0, 0, 2, 0, 0, 0})          // blocks 1, 2, 2
	f.Add([]byte{2, 2, 0, 0, 1, 0, 0, 0})                   // out of order
	f.Add([]byte{1, 1, 4, 0, 0})                            // a size bomb
	f.Add([]byte{2, 1, 3, 200, 2, 0, 0, 1})                 // overlap, total 2^64-1
	f.Add([]byte{4, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0}) // a consistent prefix
	f.Fuzz(func(t *testing.T, recipe []byte) {
		b := footerFromRecipe(recipe)
		if r := checkFooterFile(t, b); r != nil {
			r.Close()
		}
		r := checkFooterFile(t, b, WithRepair())
		if r == nil {
			t.Fatalf("WithRepair did not open a file with a valid header and schema")
		}
		defer r.Close()
		if st := r.Status(); st.State == StateRecovered && (st.Events != 400 || st.TornBytes != 0) {
			t.Fatalf("repair found %s", st)
		}
	})
}
