package schema

import (
	"encoding/binary"
	"hash/crc32"
)

// Checksums (FlagChecksums). Every byte a reader of a complete file uses
// is covered by one CRC32C (Castagnoli: hash/crc32 computes it with the
// CPU's CRC instruction where there is one):
//
//	header     bytes 0..60          header_crc32c, header bytes 60..64
//	schema     the section          schema_crc32c, header bytes 56..60
//	each block inline header + data BlockHeader.crc32c, in the footer
//	footer     the section          FileFooter.crc32c, computed with its
//	                                own 4 bytes taken as zero
//
// The header checks itself and the schema, so a file whose writer was
// killed before Close (no footer) still has both checked; the footer, once
// its own checksum passed, vouches for every block. zstd frames may carry
// their content checksum as well (verified by every zstd decoder): that is
// what checks the blocks of a file recovered without its footer.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C returns the CRC32C (Castagnoli) checksum of b.
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// UpdateCRC32C returns crc updated with b (crc of the bytes before b).
func UpdateCRC32C(crc uint32, b []byte) uint32 { return crc32.Update(crc, castagnoli, b) }

// HasChecksums reports whether the header says the file carries checksums:
// FlagChecksums, or any of the 8 bytes the original writer leaves zero (a
// flag cleared by a flipped bit must not turn the checks off).
func (h Header) HasChecksums() bool {
	return h.Flags&FlagChecksums != 0 || h.SchemaCRC != 0 || h.HeaderCRC != 0
}

// CheckHeaderCRC verifies the checksum of the 64-byte header at the start
// of b when the header says it carries one (HasChecksums); a header that
// does not (the original writer's) passes.
func CheckHeaderCRC(b []byte) error {
	h, ok := DecodeHeader(b)
	if !ok || !h.HasChecksums() {
		return nil
	}
	if got := CRC32C(b[:HeaderSize-4]); got != h.HeaderCRC {
		return ChecksumErrorf("header", HeaderSize-4, "the header's bytes 0..60 have CRC32C %08x, its header_crc32c says %08x", got, h.HeaderCRC)
	}
	if h.Flags&FlagChecksums == 0 {
		return Errorf("header", 48, "the header carries checksums but FLAG_CHECKSUMS (bit 3 of flags 0x%x) is clear", h.Flags)
	}
	return nil
}

// CheckSchemaCRC verifies the schema section b (at absolute offset base)
// against the header's schema_crc32c, when the header carries checksums.
func CheckSchemaCRC(h Header, b []byte, base int64) error {
	if !h.HasChecksums() {
		return nil
	}
	if got := CRC32C(b); got != h.SchemaCRC {
		return ChecksumErrorf("schema", base, "the %d-byte schema section has CRC32C %08x, the header's schema_crc32c says %08x", len(b), got, h.SchemaCRC)
	}
	return nil
}

// footerCRCField returns the position in the footer section b of the
// footer's crc32c field, or -1 when the footer has none (or its root table
// is not even a table: decoding it reports that).
func footerCRCField(b []byte) int {
	d := &fbuf{b: b, section: "footer"}
	p := d.field(d.root("FileFooter"), slotFooterCRC, 4, "crc32c")
	if d.err != nil || p == 0 {
		return -1
	}
	return p
}

// CheckFooterCRC verifies the checksum of the footer section b (at
// absolute offset base): the CRC32C of b with the 4 bytes of its crc32c
// field taken as zero. It reports whether the footer carries one; a footer
// without (the original writer's) passes.
func CheckFooterCRC(b []byte, base int64) (bool, error) {
	p := footerCRCField(b)
	if p < 0 {
		return false, nil
	}
	var zero [4]byte
	got := UpdateCRC32C(UpdateCRC32C(CRC32C(b[:p]), zero[:]), b[p+4:])
	if want := binary.LittleEndian.Uint32(b[p:]); got != want {
		return true, ChecksumErrorf("footer", base, "the %d-byte footer has CRC32C %08x, its crc32c field (at byte %d) says %08x", len(b), got, base+int64(p), want)
	}
	return true, nil
}

// BlockCRC returns the checksum of a block: the CRC32C of its inline header
// and data, b being the block's bytes from its inline header on.
func BlockCRC(b []byte) uint32 { return CRC32C(b) }
