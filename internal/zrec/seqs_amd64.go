//go:build amd64 && !noasm

package zrec

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// seqLoopAsm is seqLoopGo in assembly (seqs_amd64.s), for the same
// arguments; it needs no bounds checks because seqLoop checks the one
// thing it relies on: room for its 8-byte stores up to 24 bytes past limit.
// Without them Go's loop spends about twice the instructions per sequence,
// most of them moving values in and out of CX for the variable shifts.
//
//go:noescape
func seqLoopAsm(out *byte, pos, limit int, seqs *seq, n int, tabs *seqTables, st *seqState) int

// seqLoopBMI2 is seqLoopAsm with BMI2's SHLX, SHRX and BZHI, which take
// their counts from any register (a fifth fewer instructions a sequence).
//
//go:noescape
func seqLoopBMI2(out *byte, pos, limit int, seqs *seq, n int, tabs *seqTables, st *seqState) int

// hasBMI2 chooses seqLoopBMI2 (a variable, for the tests).
var hasBMI2 = cpu.X86.HasBMI2

// seqLoop writes the sequences' bitstream (seqLoopGo documents it).
func seqLoop(out []byte, pos, limit int, seqs []seq, tabs *seqTables, st *seqState) int {
	if len(seqs) == 0 || pos < 0 || pos > limit || limit+24 > len(out) {
		return seqLoopGo(out, pos, limit, seqs, tabs, st)
	}
	if hasBMI2 {
		return seqLoopBMI2(unsafe.SliceData(out), pos, limit, unsafe.SliceData(seqs), len(seqs), tabs, st)
	}
	return seqLoopAsm(unsafe.SliceData(out), pos, limit, unsafe.SliceData(seqs), len(seqs), tabs, st)
}
