package export

import "google.golang.org/protobuf/encoding/protowire"

// Small protobuf encoding helpers for the export's hot path. protowire's
// functions are general and not inlined; nearly every value here is a small
// field number or length, so a one-byte fast path inlines and saves most of
// the encoding time.

// appendVarint appends v as a varint.
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// appendTag appends a field key: one byte for fields 1..15, two up to 2047
// (every field used here).
func appendTag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	k := uint64(num)<<3 | uint64(typ&7)
	if k < 0x80 {
		return append(b, byte(k))
	}
	return append(b, byte(k)|0x80, byte(k>>7))
}

// appendUintField appends a varint field.
func appendUintField(b []byte, num protowire.Number, v uint64) []byte {
	k := uint64(num) << 3 // VarintType is 0
	if k < 0x80 && v < 0x80 {
		return append(b, byte(k), byte(v))
	}
	return appendVarint(appendTag(b, num, protowire.VarintType), v)
}

// beginMsg starts a length-delimited field whose length is not known yet:
// it appends the key and a one-byte placeholder and returns where the
// placeholder is. endMsg patches it.
func beginMsg(b []byte, num protowire.Number) ([]byte, int) {
	b = appendTag(b, num, protowire.BytesType)
	return append(b, 0), len(b)
}

// endMsg writes the length of the message started at at (the placeholder's
// index). Messages under 128 bytes, nearly all of them, need no move.
func endMsg(b []byte, at int) []byte {
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	var lenBuf [10]byte
	l := protowire.AppendVarint(lenBuf[:0], uint64(n))
	extra := len(l) - 1
	b = append(b, lenBuf[:extra]...) // grow
	copy(b[at+1+extra:], b[at+1:len(b)-extra])
	copy(b[at:], l)
	return b
}
