package mmapio

import (
	"errors"
	"io"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// fuzzSeeds are the files the open-then-iterate target starts from: every
// reference vector and the layouts of our writer, complete, crashed and cut.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds, err := ctracetest.FuzzSeeds(refDir)
	if err != nil {
		f.Fatal(err)
	}
	return seeds
}

// FuzzOpenIterate opens arbitrary bytes and reads everything every way the
// package offers: never a panic, a hang or an error that names no section;
// the ways agree with each other. (The rewrite package's FuzzComplete
// writes what opens complete again.)
func FuzzOpenIterate(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := OpenBytes("fuzz.ctrace", b, withDecoders(2), withSegmentBytes(4096))
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
