//go:build amd64 && !noasm

package zrec

import "unsafe"

// huffLoopBMI2 is appendStream's loop in assembly (literals_amd64.s): it
// codes lits[:n] (n a multiple of 4) from the last symbol down, four at a
// time after a flush, from bit nb of the container c, at out; it returns
// the bytes flushed and the container. About 29 instructions for four
// symbols where the Go loop, short of registers, took 50.
//
//go:noescape
func huffLoopBMI2(out, lits *byte, n int, val, lens *[256]uint64, c, nb uint64) (written int, cOut, nbOut uint64)

// huffLoop runs huffLoopBMI2 where the CPU has BMI2; ok is false if not.
func huffLoop(out, lits unsafe.Pointer, n int, h *huffScratch, c, nb uint64) (written int, cOut, nbOut uint64, ok bool) {
	if !hasBMI2 || n == 0 {
		return 0, c, nb, false
	}
	written, c, nb = huffLoopBMI2((*byte)(out), (*byte)(lits), n, &h.val, &h.lens, c, nb)
	return written, c, nb, true
}
