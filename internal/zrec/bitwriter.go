package zrec

import "encoding/binary"

// bitWriter writes the backward bitstream used by the sequences section:
// values are packed LSB first into a 64-bit container that is spilled 8
// bytes at a time; the decoder reads the stream from its last byte back.
//
// The hot loop in sequences.go keeps these fields in locals for speed and
// only uses the type for the cold parts (initial bits, closing).
//
// Invariant: out has at least 8 writable bytes after pos whenever flush is
// called (callers size out with slack and check pos against a limit).
type bitWriter struct {
	c   uint64 // pending bits, LSB first
	n   uint   // number of pending bits (<= 64)
	out []byte
	pos int
}

// add appends the low nb bits of v. The caller guarantees n+nb <= 64.
func (b *bitWriter) add(v uint32, nb uint8) {
	b.c |= uint64(v&(1<<nb-1)) << b.n
	b.n += uint(nb)
}

// flush spills all whole bytes, leaving at most 7 pending bits.
func (b *bitWriter) flush() {
	binary.LittleEndian.PutUint64(b.out[b.pos:], b.c)
	k := b.n >> 3
	b.pos += int(k)
	b.c >>= k << 3
	b.n &= 7
}

// close writes the end mark (a single 1 bit the decoder uses to find where
// the stream starts) and the final partial byte.
func (b *bitWriter) close() {
	b.add(1, 1)
	b.flush()
	if b.n > 0 {
		b.pos++
	}
}
