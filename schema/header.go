package schema

import "encoding/binary"

// Header is the 64-byte file header at offset 0.
//
//	off size field
//	  0    4 magic              0x43545243
//	  4    2 version_major      1
//	  6    2 version_minor      1
//	  8    8 schema_offset
//	 16    8 schema_size
//	 24    8 first_block_offset
//	 32    8 footer_offset
//	 40    8 footer_size
//	 48    8 flags
//	 56    4 schema_crc32c      reserved (0) in the original; chronon-go: FlagChecksums
//	 60    4 header_crc32c      reserved (0) in the original; chronon-go: FlagChecksums
//
// With FlagChecksums set, schema_crc32c is the CRC32C of the schema section
// the header points at (0 when there is none) and header_crc32c the CRC32C
// of the header's bytes 0..60; the original reader ignores both (it reads
// the 8 bytes as reserved).
type Header struct {
	Magic            uint32
	VersionMajor     uint16
	VersionMinor     uint16
	SchemaOffset     uint64
	SchemaSize       uint64
	FirstBlockOffset uint64
	FooterOffset     uint64
	FooterSize       uint64
	Flags            uint64
	SchemaCRC        uint32 // with FlagChecksums: CRC32C of the schema section
	HeaderCRC        uint32 // with FlagChecksums: CRC32C of bytes 0..60 (AppendHeader computes it)
}

// NewHeader returns a header with magic and version set.
func NewHeader(flags uint64) Header {
	return Header{Magic: Magic, VersionMajor: VersionMajor, VersionMinor: VersionMinor, Flags: flags}
}

// AppendHeader appends the 64-byte encoding of h to dst. With FlagChecksums
// set, the header_crc32c written is computed from the other bytes
// (h.HeaderCRC is ignored), so an encoded header always checks.
func AppendHeader(dst []byte, h Header) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, h.Magic)
	dst = binary.LittleEndian.AppendUint16(dst, h.VersionMajor)
	dst = binary.LittleEndian.AppendUint16(dst, h.VersionMinor)
	for _, v := range [...]uint64{h.SchemaOffset, h.SchemaSize, h.FirstBlockOffset, h.FooterOffset, h.FooterSize, h.Flags} {
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	dst = binary.LittleEndian.AppendUint32(dst, h.SchemaCRC)
	crc := h.HeaderCRC
	if h.Flags&FlagChecksums != 0 {
		crc = CRC32C(dst[start:])
	}
	return binary.LittleEndian.AppendUint32(dst, crc)
}

// DecodeHeader decodes the first 64 bytes of b without judging them.
// It reports false when b is shorter than a header.
func DecodeHeader(b []byte) (Header, bool) {
	if len(b) < HeaderSize {
		return Header{}, false
	}
	le := binary.LittleEndian
	return Header{
		Magic:            le.Uint32(b[0:]),
		VersionMajor:     le.Uint16(b[4:]),
		VersionMinor:     le.Uint16(b[6:]),
		SchemaOffset:     le.Uint64(b[8:]),
		SchemaSize:       le.Uint64(b[16:]),
		FirstBlockOffset: le.Uint64(b[24:]),
		FooterOffset:     le.Uint64(b[32:]),
		FooterSize:       le.Uint64(b[40:]),
		Flags:            le.Uint64(b[48:]),
		SchemaCRC:        le.Uint32(b[56:]),
		HeaderCRC:        le.Uint32(b[60:]),
	}, true
}

// ParseHeader decodes and checks the header of a file of fileSize bytes:
// magic, major version, its checksum (CheckHeaderCRC), and that every
// section it points at lies inside the file. Offsets that are all zero (a
// writer killed before it wrote them) are accepted; the reader then
// recovers by walking the blocks.
func ParseHeader(b []byte, fileSize int64) (Header, error) {
	h, ok := DecodeHeader(b)
	if !ok {
		return h, Errorf("header", 0, "truncated: %d bytes, need %d (the file is shorter than the %d-byte header)", len(b), HeaderSize, HeaderSize)
	}
	if h.Magic != Magic {
		return h, Errorf("header", 0, "bad magic 0x%08x (want 0x%08x): not a .ctrace file", h.Magic, Magic)
	}
	if h.VersionMajor != VersionMajor {
		return h, Errorf("header", 4, "unsupported format version %d.%d (this reader reads %d.x)", h.VersionMajor, h.VersionMinor, VersionMajor)
	}
	if err := CheckHeaderCRC(b); err != nil {
		return h, err
	}
	size := uint64(fileSize)
	if h.SchemaSize != 0 && !within(h.SchemaOffset, h.SchemaSize, size, HeaderSize) {
		return h, Errorf("header", 8, "schema section [%d, +%d) lies outside the %d-byte file", h.SchemaOffset, h.SchemaSize, size)
	}
	if h.FirstBlockOffset != 0 && (h.FirstBlockOffset < HeaderSize || h.FirstBlockOffset > size) {
		return h, Errorf("header", 24, "first block offset %d lies outside the %d-byte file", h.FirstBlockOffset, size)
	}
	if h.FooterSize != 0 && !within(h.FooterOffset, h.FooterSize, size, HeaderSize) {
		return h, Errorf("header", 32, "footer [%d, +%d) lies outside the %d-byte file", h.FooterOffset, h.FooterSize, size)
	}
	return h, nil
}

// within reports whether [off, off+n) lies in [lo, size) without overflow.
func within(off, n, size, lo uint64) bool {
	return off >= lo && off <= size && n <= size-off
}
