//go:build amd64 && !noasm

#include "textflag.h"

// One XXH64 round of lane ACC with the 8 bytes at OFF(SI):
// acc = rotl(acc + in*prime2, 31) * prime1 (R12 prime2, R13 prime1).
#define ROUND(ACC, OFF) \
	MOVQ  OFF(SI), AX \
	IMULQ R12, AX \
	ADDQ  AX, ACC \
	ROLQ  $31, ACC \
	IMULQ R13, ACC

// func xxh64Stripes(p *byte, stripes int, v *[4]uint64)
//
// The 32-byte stripes of XXH64 (xxh64.go), the four lanes in registers:
// Go's version of this loop carried an inlining mark (a NOP) for every
// load and round it inlined.
TEXT ·xxh64Stripes(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ stripes+8(FP), CX
	MOVQ v+16(FP), DI
	MOVQ 0(DI), R8
	MOVQ 8(DI), R9
	MOVQ 16(DI), R10
	MOVQ 24(DI), R11
	MOVQ $0xc2b2ae3d27d4eb4f, R12
	MOVQ $0x9e3779b185ebca87, R13
	// Two stripes an iteration (the loop's upkeep is a tenth of the
	// instructions then), and an odd one first.
	TESTQ $1, CX
	JEQ  pairs
	ROUND(R8, 0)
	ROUND(R9, 8)
	ROUND(R10, 16)
	ROUND(R11, 24)
	ADDQ $32, SI

pairs:
	SHRQ $1, CX
	JEQ  done

loop:
	ROUND(R8, 0)
	ROUND(R9, 8)
	ROUND(R10, 16)
	ROUND(R11, 24)
	ROUND(R8, 32)
	ROUND(R9, 40)
	ROUND(R10, 48)
	ROUND(R11, 56)
	ADDQ $64, SI
	DECQ CX
	JNZ  loop

done:
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	MOVQ R10, 16(DI)
	MOVQ R11, 24(DI)
	RET
