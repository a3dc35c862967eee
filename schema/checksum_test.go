package schema

import (
	"bytes"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"
)

// CRC32C is Castagnoli's: the check value of "123456789" is e3069283.
func TestCRC32CIsCastagnoli(t *testing.T) {
	require.Equal(t, uint32(0xe3069283), CRC32C([]byte("123456789")))
	require.Equal(t, CRC32C([]byte("123456789")), UpdateCRC32C(CRC32C([]byte("1234")), []byte("56789")))
}

func checksummedHeader() Header {
	h := NewHeader(FlagCompressed | FlagHasIndex | FlagHasSchema | FlagChecksums)
	h.SchemaOffset, h.SchemaSize, h.FirstBlockOffset, h.FooterOffset, h.FooterSize = 64, 100, 164, 500, 36
	h.SchemaCRC = 0xdeadbeef
	return h
}

// A checksummed header round-trips, and every single-bit flip of it is an
// error: its checksum, or the magic and version checks before it.
func TestHeaderChecksumCatchesEveryFlip(t *testing.T) {
	h := checksummedHeader()
	b := AppendHeader(nil, h)
	got, err := ParseHeader(b, 536)
	require.NoError(t, err)
	h.HeaderCRC = CRC32C(b[:60])
	require.Equal(t, h, got)
	for bit := range 8 * HeaderSize {
		c := bytes.Clone(b)
		c[bit/8] ^= 1 << (bit % 8)
		_, err := ParseHeader(c, 1<<20)
		var fe *FormatError
		require.ErrorAs(t, err, &fe, "bit %d", bit)
		require.Equal(t, "header", fe.Section)
		if bit >= 64 { // past magic and major version
			require.Contains(t, fe.Reason, "checksum mismatch", "bit %d", bit)
			require.Equal(t, int64(60), fe.Offset)
		}
	}
}

// A header of the original writer (reserved bytes zero, no flag) is not
// checked; one whose flag was cleared while its checksum stayed is refused.
func TestHeaderWithoutChecksums(t *testing.T) {
	h := checksummedHeader()
	h.Flags &^= FlagChecksums
	h.SchemaCRC = 0
	b := AppendHeader(nil, h)
	require.Equal(t, make([]byte, 8), b[56:])
	_, err := ParseHeader(b, 536)
	require.NoError(t, err)

	h = checksummedHeader()
	b = AppendHeader(nil, h)
	h.Flags &^= FlagChecksums
	c := AppendHeader(nil, h)
	copy(c[56:], b[56:]) // the old checksum: now wrong
	_, err = ParseHeader(c, 536)
	require.ErrorContains(t, err, "checksum mismatch")
}

func checksummedFooter() *Footer {
	return &Footer{
		Blocks: []BlockIndex{
			{Index: 0, EventCount: 5, MinCycle: 0, MaxCycle: 9, UncompressedSize: 200, CompressedSize: 100, DataOffset: 128, Units: []uint16{3}, CRC: 0x12345678, HasCRC: true},
			{Index: 1, EventCount: 6, MinCycle: 9, MaxCycle: 20, UncompressedSize: 220, CompressedSize: 220, DataOffset: 256, Units: []uint16{1, 2}, CRC: 0, HasCRC: true},
		},
		TotalEvents: 11, MinCycle: 0, MaxCycle: 20, CreatedTimestamp: 1700000000,
		UnitStats: []UnitStat{{UnitID: 1, Emitted: 4, Written: 3, Dropped: 1}},
		HasCRC:    true,
	}
}

// A footer built with checksums records every entry's (a zero one too)
// and its own, which CheckFooterCRC verifies; every single-bit flip of it
// either fails the check or hides the field (then the header's flag says
// it is missing).
func TestFooterChecksumCatchesEveryFlip(t *testing.T) {
	f := checksummedFooter()
	b := BuildFooter(flatbuffers.NewBuilder(0), f)
	has, err := CheckFooterCRC(b, 1000)
	require.NoError(t, err)
	require.True(t, has)
	got, err := DecodeFooter(b, 1000)
	require.NoError(t, err)
	require.True(t, got.HasCRC)
	f.CRC = got.CRC
	require.Equal(t, f, got)
	p := footerCRCField(b)
	require.Equal(t, got.CRC, le32(b[p:]))
	require.Equal(t, got.CRC, CRC32C(append(append(bytes.Clone(b[:p]), 0, 0, 0, 0), b[p+4:]...)))

	for bit := range 8 * len(b) {
		c := bytes.Clone(b)
		c[bit/8] ^= 1 << (bit % 8)
		has, err := CheckFooterCRC(c, 1000)
		if !has {
			continue // the reader refuses a footer without one when the header has FlagChecksums
		}
		require.Error(t, err, "bit %d", bit)
		var fe *FormatError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, "footer", fe.Section)
		require.Contains(t, fe.Reason, "checksum mismatch")
	}
}

// A footer of the original writer has no checksum and passes.
func TestFooterWithoutChecksum(t *testing.T) {
	f := checksummedFooter()
	f.HasCRC = false
	b := BuildFooter(flatbuffers.NewBuilder(0), f)
	has, err := CheckFooterCRC(b, 0)
	require.NoError(t, err)
	require.False(t, has)
	got, err := DecodeFooter(b, 0)
	require.NoError(t, err)
	for _, e := range got.Blocks {
		require.False(t, e.HasCRC)
	}
	ref := readRef(t, "mixed-small.ctrace")
	h, _ := DecodeHeader(ref)
	has, err = CheckFooterCRC(ref[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	require.False(t, has)
}

func TestSchemaChecksum(t *testing.T) {
	sec := BuildSchema(flatbuffers.NewBuilder(0), &Schema{Version: 1, SimulationName: "s", Units: []Unit{{ID: 1, Name: "core0"}}})
	h := checksummedHeader()
	h.SchemaCRC = CRC32C(sec)
	require.NoError(t, CheckSchemaCRC(h, sec, 64))
	c := bytes.Clone(sec)
	c[len(c)/2] ^= 4
	err := CheckSchemaCRC(h, c, 64)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "schema", fe.Section)
	require.Equal(t, int64(64), fe.Offset)
	require.Contains(t, fe.Reason, "checksum mismatch")
	require.NoError(t, CheckSchemaCRC(Header{}, c, 64), "no checksums: nothing to check")
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// The writer's cost of a block's checksum: go test -run NONE -bench BlockCRC ./schema
// (bytes/s; with the CPU's CRC32 instruction, tens of GB/s).
func BenchmarkBlockCRC(b *testing.B) {
	blk := bytes.Repeat([]byte("chronon block bytes "), 128<<10/20)
	b.SetBytes(int64(len(blk)))
	b.ReportAllocs()
	var sink uint32
	for b.Loop() {
		sink += BlockCRC(blk)
	}
	_ = sink
}
