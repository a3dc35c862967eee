//go:build amd64 && !noasm

#include "textflag.h"

// One symbol, at offset OFF from lits+n: its code at bit BX of the
// container AX, its length added to BX.
#define SYM(OFF) \
	MOVBLZX OFF(SI)(CX*1), DX \
	MOVQ    (R8)(DX*8), R11 \
	SHLXQ   BX, R11, R11 \
	ORQ     R11, AX \
	ADDQ    (R9)(DX*8), BX

// func huffLoopBMI2(out, lits *byte, n int, val, lens *[256]uint64, c, nb uint64) (written int, cOut, nbOut uint64)
//
// Registers: DI the write pointer, SI lits, CX the symbols left, R8 val,
// R9 lens, AX the container, BX its bit count.
TEXT ·huffLoopBMI2(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ lits+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ val+24(FP), R8
	MOVQ lens+32(FP), R9
	MOVQ c+40(FP), AX
	MOVQ nb+48(FP), BX
	MOVQ DI, R10
	TESTQ CX, CX
	JEQ  done

loop:
	// Spill the whole bytes (at most 7 bits stay), then four symbols (at
	// most 44 bits).
	MOVQ  AX, (DI)
	MOVQ  BX, DX
	ANDQ  $0x38, DX
	SHRXQ DX, AX, AX
	SHRQ  $3, DX
	ADDQ  DX, DI
	ANDQ  $7, BX
	SYM(-1)
	SYM(-2)
	SYM(-3)
	SYM(-4)
	SUBQ $4, CX
	JNZ  loop

done:
	SUBQ R10, DI
	MOVQ DI, written+56(FP)
	MOVQ AX, cOut+64(FP)
	MOVQ BX, nbOut+72(FP)
	RET
