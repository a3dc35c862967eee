package mmapio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// fuzzSeeds are the files the open-then-iterate target starts from: every
// reference vector and the layouts of our writer, complete, crashed and cut.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, name := range []string{"mixed-small.ctrace", "raw.ctrace", "noschema.ctrace", "noindex.ctrace", "noindex-twin.ctrace", "crash.ctrace", "crash.ctrace.crash", "multiblock.ctrace"} {
		b, err := os.ReadFile(refPath(name))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 {
			seeds = append(seeds, b[:64<<10]) // large vectors: their first 64 KiB (a cut file)
			continue
		}
		seeds = append(seeds, b)
	}
	evs := ctracetest.W1Events(200, 4, 1)
	for _, o := range []ctracetest.Options{
		{BlockSize: 600, PerUnit: true, Compress: true, UnitStats: true},
		{BlockSize: 600, Compress: true, ZeroHeader: true},
		{BlockSize: 600, PerUnit: true, NoFooter: true, SchemaPad: 20},
		{BlockSize: 900, NoSchema: true},
		{BlockSize: 900, FinalSchema: ctracetest.W1Schema(5)},
		{BlockSize: 600, Compress: true, Truncate: 3000},
	} {
		b, err := ctracetest.Build(ctracetest.W1Schema(4), evs, o)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzOpenIterate opens arbitrary bytes and reads everything every way the
// package offers: never a panic, a hang or an error that names no section;
// the ways agree with each other.
func FuzzOpenIterate(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := OpenBytes("fuzz.ctrace", b, WithDecoders(2), withSegmentBytes(4096))
		if err != nil {
			var fe *schema.FormatError
			if !errors.As(err, &fe) || fe.File != "fuzz.ctrace" || fe.Section == "" {
				t.Fatalf("error without file and section: %v", err)
			}
			return
		}
		defer r.Close()
		n := 0
		var last uint64
		for ev := range r.Events(Query{}) {
			if ev.Cycle < last {
				t.Fatalf("cycle %d after %d", ev.Cycle, last)
			}
			last = ev.Cycle
			_ = ev.Message()
			for range ev.Args() {
			}
			n++
		}
		iterErr := r.Err()
		lines, err := writeDump(r, io.Discard, Query{}, 0)
		if (err == nil) != (iterErr == nil) {
			t.Fatalf("Events error %v, WriteDump error %v", iterErr, err)
		}
		if err == nil && lines != n {
			t.Fatalf("Events gave %d events, WriteDump %d lines", n, lines)
		}
		if iterErr != nil {
			return
		}
		if r.Status().State == StateRecovered && uint64(n) != r.Status().Events {
			t.Fatalf("recovered %d events, iterated %d", r.Status().Events, n)
		}
		for range r.Events(Query{}.WithCycles(last/2, last).WithUnits(1, 2)) {
		}
		var out bytes.Buffer
		if _, err := r.WriteComplete(&out, testTime); err != nil {
			t.Fatal(err)
		}
		r2, err := OpenBytes("complete.ctrace", out.Bytes())
		if err != nil {
			t.Fatalf("WriteComplete wrote a file that does not open: %v", err)
		}
		defer r2.Close()
		if r2.Status().State != StateComplete {
			t.Fatalf("WriteComplete wrote a %v file", r2.Status())
		}
		m := 0
		for range r2.Events(Query{}) {
			m++
		}
		if r2.Err() != nil || m != n {
			t.Fatalf("the complete copy has %d events (err %v), want %d", m, r2.Err(), n)
		}
	})
}

// FuzzBlockData puts arbitrary bytes in a block of an otherwise valid file:
// the block decoder must reject them or return exactly the declared events.
func FuzzBlockData(f *testing.F) {
	evs := ctracetest.W1Events(50, 2, 1)
	var data []byte
	for _, e := range evs {
		data = schema.AppendEvent(data, e.Record, e.Args)
	}
	enc, _ := zstd.NewWriter(nil)
	f.Add(data, uint32(50), evs[0].Cycle, evs[49].Cycle, false)
	f.Add(enc.EncodeAll(data, nil), uint32(50), evs[0].Cycle, evs[49].Cycle, true)
	f.Add(data[:100], uint32(3), uint64(0), uint64(1<<40), false)
	f.Fuzz(func(t *testing.T, payload []byte, count uint32, lo, hi uint64, compressed bool) {
		usize := uint32(len(payload))
		if compressed {
			usize = uint32(len(payload)) + 1 + count%4096 // claims more than it holds: must decode to it
		}
		bh := schema.BlockHeader{EventCount: count, MinCycle: lo, MaxCycle: hi, UncompressedSize: usize, CompressedSize: uint32(len(payload))}
		sch := schema.BuildSchema(flatbuffers.NewBuilder(0), ctracetest.W1Schema(2))
		h := schema.NewHeader(schema.FlagCompressed | schema.FlagHasSchema | schema.FlagHasIndex)
		h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(sch))
		h.FirstBlockOffset = h.SchemaOffset + h.SchemaSize
		file := append(schema.AppendHeader(nil, h), sch...)
		file = schema.AppendBlockHeader(file, bh)
		file = append(file, payload...)
		foot := schema.BuildFooter(flatbuffers.NewBuilder(0), &schema.Footer{Blocks: []schema.BlockIndex{{EventCount: count, MinCycle: lo, MaxCycle: hi,
			UncompressedSize: bh.UncompressedSize, CompressedSize: bh.CompressedSize, DataOffset: h.FirstBlockOffset}}})
		h.FooterOffset, h.FooterSize = uint64(len(file)), uint64(len(foot))
		file = append(file, foot...)
		copy(file, schema.AppendHeader(nil, h))

		r, err := OpenBytes("block.ctrace", file)
		if err != nil {
			return // an implausible header (the footer entry is checked at open)
		}
		defer r.Close()
		n := uint32(0)
		for ev := range r.Events(Query{}) {
			if ev.Cycle < lo || ev.Cycle > hi {
				t.Fatalf("cycle %d outside %d-%d", ev.Cycle, lo, hi)
			}
			n++
		}
		if r.Err() == nil && n != count {
			t.Fatalf("%d events, the header says %d", n, count)
		}
	})
}
