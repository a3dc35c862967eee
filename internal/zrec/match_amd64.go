//go:build amd64 && !noasm

package zrec

import "unsafe"

// useMatchAsm: findSequences hands events to matchAsm (match_amd64.s)
// where it can. A variable so that tests can compare it with the Go loop.
var useMatchAsm = true

// matchAsm runs findSequences' fast path from e.mr.p, in assembly, and
// returns at the first event it cannot take, with the state in e.mr. src,
// lits and seqs are the bases of findSequences' buffers, which it sized.
//
//go:noescape
func matchAsm(e *Encoder, src, lits, seqs unsafe.Pointer)
