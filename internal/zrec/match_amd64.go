//go:build amd64 && !noasm

package zrec

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useMatchAsm: findSequences hands events to matchAsm (match_amd64.s)
// where it can. A variable so that tests can compare it with the Go loop.
var useMatchAsm = true

// matchAVX2: matchAsm compares an event with its predecessor in two
// 32-byte halves and masks it with BMI2 (10 fewer instructions an event
// than 16-byte SSE2 compares). A variable so that tests run both.
var matchAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// matchAsm runs findSequences' fast path from e.mr.p, in assembly, and
// returns at the first event it cannot take, with the state in e.mr. src,
// lits and seqs are the bases of findSequences' buffers, which it sized.
//
//go:noescape
func matchAsm(e *Encoder, src, lits, seqs unsafe.Pointer)
