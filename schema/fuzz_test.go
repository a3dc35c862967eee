package schema

import (
	"reflect"
	"slices"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

func FuzzDecodeSchema(f *testing.F) {
	f.Add(BuildSchema(flatbuffers.NewBuilder(0), sampleSchema()))
	for _, name := range []string{"mixed-small.ctrace", "crash.ctrace"} {
		b := readRef(f, name)
		h, _ := DecodeHeader(b)
		f.Add(b[h.SchemaOffset : h.SchemaOffset+h.SchemaSize])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, extent, err := DecodeSchema(b, 64)
		if err == nil && (s == nil || extent > len(b)) {
			t.Fatalf("decoded without error but s=%v extent=%d len=%d", s, extent, len(b))
		}
	})
}

func FuzzDecodeFooter(f *testing.F) {
	f.Add(BuildFooter(flatbuffers.NewBuilder(0), &Footer{Blocks: []BlockIndex{{Index: 0, EventCount: 3, Units: []uint16{1, 2}}}, UnitStats: []UnitStat{{UnitID: 1}}}))
	f.Add(BuildFooter(flatbuffers.NewBuilder(0), checksummedFooter()))
	for _, name := range []string{"mixed-small.ctrace", "raw.ctrace"} {
		b := readRef(f, name)
		h, _ := DecodeHeader(b)
		f.Add(b[h.FooterOffset : h.FooterOffset+h.FooterSize])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		has, cerr := CheckFooterCRC(b, 0)
		if cerr != nil && !has {
			t.Fatalf("checksum error without a checksum: %v", cerr)
		}
		ft, err := DecodeFooter(b, 0)
		if err == nil && ft == nil {
			t.Fatal("nil footer without error")
		}
		if err == nil && ft.HasCRC != has {
			t.Fatalf("DecodeFooter says HasCRC %v, CheckFooterCRC %v", ft.HasCRC, has)
		}
		// The in-place index verifies exactly as the copy does and, when
		// both accept, reads the same entries.
		x, xerr := DecodeFooterIndex(b, 0, nil)
		if (err == nil) != (xerr == nil) || err != nil && err.Error() != xerr.Error() {
			t.Fatalf("DecodeFooter: %v; DecodeFooterIndex: %v", err, xerr)
		}
		if err != nil {
			return
		}
		if x.Len() != len(ft.Blocks) {
			t.Fatalf("index has %d entries, footer %d", x.Len(), len(ft.Blocks))
		}
		var units []uint16
		for i, w := range ft.Blocks {
			g := x.Block(i)
			var ok bool
			units, ok = x.BlockUnits(i, units)
			if ok != (w.Units != nil) || !slices.Equal(units, w.Units) {
				t.Fatalf("block %d: units %v (%v), footer %v", i, units, ok, w.Units)
			}
			g.Units = w.Units
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("block %d: index %+v, footer %+v", i, g, w)
			}
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	f.Add(readRef(f, "mixed-small.ctrace")[:HeaderSize], int64(15951))
	f.Add(readRef(f, "crash.ctrace.crash")[:HeaderSize], int64(322784))
	f.Add(AppendHeader(nil, checksummedHeader()), int64(536))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		h, err := ParseHeader(b, size)
		if err != nil {
			return
		}
		if h.SchemaSize != 0 && h.SchemaOffset+h.SchemaSize > uint64(size) {
			t.Fatalf("accepted schema past end: %+v size %d", h, size)
		}
		if h.FooterSize != 0 && h.FooterOffset+h.FooterSize > uint64(size) {
			t.Fatalf("accepted footer past end: %+v size %d", h, size)
		}
	})
}

func FuzzDecodeBlockHeaderAndEvents(f *testing.F) {
	f.Add(AppendEvent(AppendBlockHeader(nil, BlockHeader{EventCount: 1, UncompressedSize: 30, CompressedSize: 30}), Record{Cycle: 5}, []byte{1, 2, 3, 4}))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := DecodeBlockHeader(b)
		if !ok {
			return
		}
		_ = h.Plausible()
		rest := b[BlockHeaderSize:]
		for len(rest) > 0 {
			_, args, n, ok := DecodeEvent(rest)
			if !ok {
				break
			}
			if n < EventHeaderSize || len(args) != n-EventHeaderSize || n > len(rest) {
				t.Fatalf("bad event size %d args %d rest %d", n, len(args), len(rest))
			}
			rest = rest[n:]
		}
	})
}
