package schema

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema/fb"
)

func readRef(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "reference", name))
	require.NoError(t, err)
	return b
}

func TestHeaderRoundTrip(t *testing.T) {
	h := NewHeader(FlagCompressed | FlagHasIndex | FlagHasSchema)
	h.SchemaOffset, h.SchemaSize, h.FirstBlockOffset, h.FooterOffset, h.FooterSize = 64, 100, 164, 500, 36
	b := AppendHeader(nil, h)
	require.Len(t, b, HeaderSize)
	require.Equal(t, []byte{0x43, 0x52, 0x54, 0x43}, b[:4], "magic bytes on disk")
	got, err := ParseHeader(b, 536)
	require.NoError(t, err)
	require.Equal(t, h, got)
}

func TestParseHeaderRejects(t *testing.T) {
	good := AppendHeader(nil, Header{Magic: Magic, VersionMajor: 1, VersionMinor: 1, SchemaOffset: 64, SchemaSize: 10, FooterOffset: 80, FooterSize: 20})
	cases := map[string]struct {
		edit   func(b []byte)
		size   int64
		offset int64
	}{
		"bad magic":        {func(b []byte) { b[0] = 'X' }, 100, 0},
		"major version 2":  {func(b []byte) { b[4] = 2 }, 100, 4},
		"schema past end":  {func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 1000) }, 100, 8},
		"schema wraps":     {func(b []byte) { binary.LittleEndian.PutUint64(b[16:], ^uint64(0)) }, 100, 8},
		"footer past end":  {func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 90) }, 100, 32},
		"footer in header": {func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 10) }, 100, 32},
		"first block past": {func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 101) }, 100, 24},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := bytes.Clone(good)
			c.edit(b)
			_, err := ParseHeader(b, c.size)
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, "header", fe.Section)
			require.Equal(t, c.offset, fe.Offset)
		})
	}
	_, err := ParseHeader(good[:63], 63)
	require.ErrorContains(t, err, "shorter than the 64-byte header")
}

func TestBlockHeaderRoundTrip(t *testing.T) {
	h := BlockHeader{EventCount: 7, MinCycle: 10, MaxCycle: 20, UncompressedSize: 300, CompressedSize: 120}
	b := AppendBlockHeader(nil, h)
	require.Len(t, b, BlockHeaderSize)
	got, ok := DecodeBlockHeader(b)
	require.True(t, ok)
	require.Equal(t, h, got)
	require.Empty(t, got.Plausible())
	var b2 [BlockHeaderSize]byte
	PutBlockHeader(b2[:], h)
	require.Equal(t, b, b2[:])
	require.NotEmpty(t, BlockHeader{EventCount: 1, UncompressedSize: 10, CompressedSize: 10}.Plausible(), "one event needs 26 bytes")
	require.NotEmpty(t, BlockHeader{EventCount: 1, UncompressedSize: 100, CompressedSize: 200}.Plausible())
	require.NotEmpty(t, BlockHeader{EventCount: 1, MinCycle: 5, MaxCycle: 4, UncompressedSize: 100, CompressedSize: 50}.Plausible())
}

func TestEventRoundTrip(t *testing.T) {
	r := Record{Cycle: 0x0102030405060708, FormatID: 9, Category: 0xdeadbeef, SourceID: 513, ArgCount: 2}
	b := AppendEvent(nil, r, []byte{1, 2, 3})
	require.Len(t, b, EventHeaderSize+3)
	require.Equal(t, []byte{3, 0}, b[:2], "args_size prefix")
	require.Equal(t, []byte{0, 0, 0, 0, 0}, b[21:26], "padding")
	got, args, n, ok := DecodeEvent(b)
	require.True(t, ok)
	require.Equal(t, r, got)
	require.Equal(t, []byte{1, 2, 3}, args)
	require.Equal(t, len(b), n)
	_, _, _, ok = DecodeEvent(b[:len(b)-1])
	require.False(t, ok)
}

func TestPlaceholders(t *testing.T) {
	cases := []struct {
		format string
		want   []Placeholder
	}{
		{"fetch pc=0x{:x} taken={}", []Placeholder{{11, 15, true}, {22, 24, false}}},
		{"no args", nil},
		{"trailing {", nil},
		{"open { never closed", nil},
		{"{{x}", []Placeholder{{0, 4, true}}},
		{"{X}{}", []Placeholder{{0, 3, true}, {3, 5, false}}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Placeholders(c.format), c.format)
	}
}

func TestArgNames(t *testing.T) {
	require.Equal(t, []string{"pc", "taken"}, ArgNames("fetch pc=0x{:x} taken={}"))
	require.Equal(t, []string{"uop", "srcs", "dst"}, ArgNames("decode uop={} srcs={} dst={}"))
	require.Equal(t, []string{"cache", "addr", "lat"}, ArgNames("cache {} addr=0x{:x} lat={}"))
	require.Equal(t, []string{"x", "x_1"}, ArgNames("x={} x={}"))
	require.Equal(t, []string{"hex"}, ArgNames("hex: {:x}"))
	require.Equal(t, []string{"arg0", "arg1"}, ArgNames("{}-{}"))
}

func TestDecodeReferenceSchemaAndFooter(t *testing.T) {
	b := readRef(t, "mixed-small.ctrace")
	h, err := ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	s, extent, err := DecodeSchema(b[h.SchemaOffset:h.SchemaOffset+h.SchemaSize], int64(h.SchemaOffset))
	require.NoError(t, err)
	require.Equal(t, "conformance-mixed-11", s.SimulationName)
	require.Len(t, s.Formats, 9)
	require.Len(t, s.Units, 4)
	require.LessOrEqual(t, uint64(extent), h.SchemaSize)
	require.GreaterOrEqual(t, uint64(extent)+8, h.SchemaSize, "extent finds the end of the buffer up to padding")
	var fetch *Format
	for i := range s.Formats {
		if s.Formats[i].Format == "fetch pc=0x{:x} taken={}" {
			fetch = &s.Formats[i]
		}
	}
	require.NotNil(t, fetch)
	require.Equal(t, []ArgType{ArgUInt64, ArgBool}, fetch.ArgTypes)
	require.Equal(t, "sim/core.cpp", fetch.File)
	require.Equal(t, EventKind(0), fetch.Kind, "old files have no kind")

	f, err := DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	require.Len(t, f.Blocks, 1)
	require.Equal(t, uint64(1000), f.TotalEvents)
	require.Equal(t, h.FirstBlockOffset, f.Blocks[0].DataOffset)
	require.Nil(t, f.Blocks[0].Units, "the original writer records no unit sets")
	inline, ok := DecodeBlockHeader(b[f.Blocks[0].DataOffset:])
	require.True(t, ok)
	require.Equal(t, f.Blocks[0].Inline(), inline)
}

// The verified decoder and the flatc-generated accessors must read the same
// values: the generated code is what other Go programs would use.
func TestDecoderAgreesWithGeneratedCode(t *testing.T) {
	for _, name := range []string{"mixed-small.ctrace", "multiblock.ctrace", "raw.ctrace", "crash.ctrace"} {
		b := readRef(t, name)
		h, err := ParseHeader(b, int64(len(b)))
		require.NoError(t, err)
		sec := b[h.SchemaOffset : h.SchemaOffset+h.SchemaSize]
		s, _, err := DecodeSchema(sec, int64(h.SchemaOffset))
		require.NoError(t, err)
		require.Equal(t, SchemaIdentifier, string(sec[4:8]), name)
		g := fb.GetRootAsTraceSchema(sec, 0)
		require.Equal(t, g.FormatsLength(), len(s.Formats))
		var fe fb.FormatEntry
		for i := range s.Formats {
			require.True(t, g.Formats(&fe, i))
			require.Equal(t, string(fe.FormatString()), s.Formats[i].Format)
			require.Equal(t, fe.Id(), s.Formats[i].ID)
			require.Equal(t, fe.ArgTypesLength(), len(s.Formats[i].ArgTypes))
		}
		var ue fb.UnitEntry
		for i := range s.Units {
			require.True(t, g.Units(&ue, i))
			require.Equal(t, string(ue.Name()), s.Units[i].Name)
			require.Equal(t, ue.Id(), s.Units[i].ID)
		}
		fsec := b[h.FooterOffset : h.FooterOffset+h.FooterSize]
		f, err := DecodeFooter(fsec, int64(h.FooterOffset))
		require.NoError(t, err)
		gf := fb.GetRootAsFileFooter(fsec, 0)
		require.Equal(t, gf.BlocksLength(), len(f.Blocks))
		require.Equal(t, gf.TotalEvents(), f.TotalEvents)
		var bh fb.BlockHeader
		for i := range f.Blocks {
			require.True(t, gf.Blocks(&bh, i))
			require.Equal(t, bh.DataOffset(), f.Blocks[i].DataOffset)
			require.Equal(t, bh.MaxCycle(), f.Blocks[i].MaxCycle)
		}
	}
}

func sampleSchema() *Schema {
	return &Schema{
		Version: 1,
		Formats: []Format{
			{ID: 1, Format: "fetch pc=0x{:x} taken={}", File: "w1.go", Line: 10, ArgTypes: []ArgType{ArgUInt64, ArgBool}, Category: 2, ArgNames: []string{"pc", "taken"}},
			{ID: 2, Format: "rob {} dur={}", ArgTypes: []ArgType{ArgUInt32, ArgUInt64}, Kind: KindSpanComplete, ArgRoles: []ArgRole{RoleLane, RoleDuration}, Name: "rob", IsLog: true, LogLevel: 2},
			{ID: 3, Format: "task id={} parent={} kind={}", ArgTypes: []ArgType{ArgUInt64, ArgUInt64, ArgUInt32}, Kind: KindAsyncBegin, ArgRoles: []ArgRole{RoleID, RoleParent, RoleSymbol}, Name: "task"},
		},
		Categories:     []Category{{Name: "pipe", Description: "pipeline", Mask: 2}},
		Units:          []Unit{{ID: 1, Name: "core0.fetch", TypeName: "fetchUnit"}, {ID: 65535, Name: "x", TimeBase: Hz(3_000_000_000)}},
		SimulationName: "w1",
		ConfigHash:     0xfeedface,
		Metadata:       []KeyValue{{"host", "h"}, {"rank", "3"}},
		Writer:         "chronon-go test",
		TimeBase:       Picoseconds,
		Symbols:        []string{"req_in", "", "L2Cache.bank"},
	}
}

func TestSchemaRoundTrip(t *testing.T) {
	s := sampleSchema()
	b := BuildSchema(flatbuffers.NewBuilder(0), s)
	require.Equal(t, SchemaIdentifier, string(b[4:8]))
	got, extent, err := DecodeSchema(b, 64)
	require.NoError(t, err)
	require.Equal(t, s, got)
	require.LessOrEqual(t, extent, len(b))
	require.GreaterOrEqual(t, extent+8, len(b))
}

func TestFooterRoundTrip(t *testing.T) {
	f := &Footer{
		Blocks: []BlockIndex{
			{Index: 0, EventCount: 5, MinCycle: 0, MaxCycle: 9, UncompressedSize: 200, CompressedSize: 100, DataOffset: 128, Units: []uint16{3}},
			{Index: 1, EventCount: 6, MinCycle: 9, MaxCycle: 20, UncompressedSize: 220, CompressedSize: 220, DataOffset: 256, Units: []uint16{1, 2}},
			{Index: 2, EventCount: 1, MinCycle: 30, MaxCycle: 30, UncompressedSize: 26, CompressedSize: 26, DataOffset: 504},
		},
		TotalEvents: 12, MinCycle: 0, MaxCycle: 30, CreatedTimestamp: 1700000000,
		UnitStats: []UnitStat{{UnitID: 1, Emitted: 4, Written: 3, Dropped: 1}},
	}
	b := BuildFooter(flatbuffers.NewBuilder(0), f)
	got, err := DecodeFooter(b, 1000)
	require.NoError(t, err)
	require.Equal(t, f, got)
}

// Every truncation and every single-byte corruption of a schema and a footer
// either decodes or fails with a FormatError naming the section: never a panic.
func TestDecodeCorruptNeverPanics(t *testing.T) {
	sb := BuildSchema(flatbuffers.NewBuilder(0), sampleSchema())
	fbuf := BuildFooter(flatbuffers.NewBuilder(0), &Footer{Blocks: []BlockIndex{{Index: 0, EventCount: 1, Units: []uint16{1}}}, UnitStats: []UnitStat{{UnitID: 1}}})
	// The offset an error names is a byte of the section itself: the field
	// that holds the bad value, never a computed address outside the file.
	check := func(section string, base int64, size int, err error) {
		if err == nil {
			return
		}
		var fe *FormatError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, section, fe.Section)
		require.GreaterOrEqual(t, fe.Offset, base, err.Error())
		require.Less(t, fe.Offset, base+int64(max(size, 1)), err.Error())
	}
	for n := 0; n <= len(sb); n++ {
		_, _, err := DecodeSchema(sb[:n], 64)
		check("schema", 64, n, err)
	}
	for n := 0; n <= len(fbuf); n++ {
		_, err := DecodeFooter(fbuf[:n], 1000)
		check("footer", 1000, n, err)
	}
	for i := range sb {
		for _, v := range []byte{0, 0xff, 0x80, 0x7f} {
			b := bytes.Clone(sb)
			b[i] = v
			_, _, err := DecodeSchema(b, 64)
			check("schema", 64, len(b), err)
		}
	}
	for i := range fbuf {
		for _, v := range []byte{0, 0xff, 0x80, 0x7f} {
			b := bytes.Clone(fbuf)
			b[i] = v
			_, err := DecodeFooter(b, 1000)
			check("footer", 1000, len(b), err)
		}
	}
}

func TestDecodeRejectsHugeVector(t *testing.T) {
	b := BuildFooter(flatbuffers.NewBuilder(0), &Footer{Blocks: []BlockIndex{{Index: 0}}})
	// Find the blocks vector length (1) and make it claim a billion entries.
	root := int(binary.LittleEndian.Uint32(b))
	tab := fbuf{b: b}
	tt := tab.table(0, root, "root")
	vec := tab.target(tt, slotFooterBlocks, "blocks")
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(b[vec:]))
	binary.LittleEndian.PutUint32(b[vec:], 1<<30)
	_, err := DecodeFooter(b, 500)
	require.ErrorContains(t, err, "vector of 1073741824 elements")
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, int64(500+vec), fe.Offset)
}

// Decoding a footer allocates per footer, not per block: a reader seeking in
// a large trace decodes thousands of block entries at open.
func TestDecodeFooterAllocations(t *testing.T) {
	f := &Footer{}
	for i := 0; i < 5000; i++ {
		f.Blocks = append(f.Blocks, BlockIndex{Index: uint32(i), EventCount: 10, DataOffset: uint64(i) * 100, Units: []uint16{uint16(i % 16)}})
	}
	b := BuildFooter(flatbuffers.NewBuilder(0), f)
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := DecodeFooter(b, 0); err != nil {
			t.Fatal(err)
		}
	})
	require.Less(t, allocs, 40.0, "allocations to decode a 5000-block footer")
}
