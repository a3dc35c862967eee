//go:build amd64 && !noasm

package zrec

import "unsafe"

// xxh64Stripes runs XXH64's lanes v over stripes 32-byte stripes at p
// (xxh64_amd64.s).
//
//go:noescape
func xxh64Stripes(p *byte, stripes int, v *[4]uint64)

// xxh64Lanes runs the lanes over b's whole stripes and returns how many
// bytes they took.
func xxh64Lanes(b []byte, v *[4]uint64) int {
	stripes := len(b) / 32
	if stripes > 0 {
		xxh64Stripes(unsafe.SliceData(b), stripes, v)
	}
	return stripes * 32
}
