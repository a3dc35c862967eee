//go:build !amd64 || noasm

package zrec

import "unsafe"

// useMatchAsm: no assembly match loop on this platform.
const useMatchAsm = false

func matchAsm(e *Encoder, src, lits unsafe.Pointer, seqs unsafe.Pointer) {}
