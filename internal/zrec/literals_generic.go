//go:build !amd64 || noasm

package zrec

import "unsafe"

// hasBMI2 is the amd64 build's choice of assembly loops; here there are
// none (the tests set it all the same).
var hasBMI2 = false

// huffLoop: no assembly for appendStream's loop in this build.
func huffLoop(out, lits unsafe.Pointer, n int, h *huffScratch, c, nb uint64) (written int, cOut, nbOut uint64, ok bool) {
	return 0, c, nb, false
}
