//go:build !amd64 || noasm

package zrec

import "encoding/binary"

// xxh64Lanes runs XXH64's lanes v over b's whole 32-byte stripes and
// returns how many bytes they took.
func xxh64Lanes(b []byte, v *[4]uint64) int {
	n := 0
	for ; len(b) >= 32; b = b[32:] {
		v[0] = xxRound(v[0], binary.LittleEndian.Uint64(b[0:8]))
		v[1] = xxRound(v[1], binary.LittleEndian.Uint64(b[8:16]))
		v[2] = xxRound(v[2], binary.LittleEndian.Uint64(b[16:24]))
		v[3] = xxRound(v[3], binary.LittleEndian.Uint64(b[24:32]))
		n += 32
	}
	return n
}
