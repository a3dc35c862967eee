//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

// seqLoopBMI2's frame: the pair loop's last start and write bound.
#define PAIREND  0(SP)
#define PAIRSAFE 8(SP)

// One FSE symbol: the state transition of table TAB for the code in
// CODE (already shifted and masked into DI), state in STATE: emit the
// state's low k bits at bit NBITS (BX) of the container (AX), where
// k = (state + deltaNbBits) >> 16, then state = st[(state >> k) +
// deltaFindState]. Clobbers CX, DI, R15.
#define SYMBOL(TAB, STATE) \
	MOVL    (TAB+fseTable_tt)(DX)(DI*8), CX \
	ADDL    STATE, CX \
	SHRL    $16, CX \
	MOVL    seqTables_lowMask(DX)(CX*4), R15 \
	ANDL    STATE, R15 \
	SHRL    CX, STATE \
	ADDL    (TAB+fseTable_tt+4)(DX)(DI*8), STATE \
	MOVWLZX (TAB+fseTable_st)(DX)(STATE*2), STATE \
	MOVL    CX, DI \
	MOVQ    BX, CX \
	SHLQ    CX, R15 \
	ORQ     R15, AX \
	ADDQ    DI, BX

// Spill the container's whole bytes at R8 and advance R8.
#define FLUSH \
	MOVQ AX, (R8) \
	MOVQ BX, CX \
	SHRQ $3, CX \
	ADDQ CX, R8 \
	SHLQ $3, CX \
	SHRQ CX, AX \
	ANDQ $7, BX

// func seqLoopAsm(out *byte, pos, limit int, seqs *seq, n int, tabs *seqTables, st *seqState) int
//
// Registers: AX bit container, BX its bit count, R8 write pointer, R9
// limit pointer, SI the sequence (from the last to the first), R10 the
// first, DX the tables, R11/R12/R13 the LL/ML/OF states, R14 the extra
// bits' count.
TEXT ·seqLoopAsm(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ pos+8(FP), R8
	ADDQ DI, R8
	MOVQ limit+16(FP), R9
	ADDQ DI, R9
	MOVQ seqs+24(FP), R10
	MOVQ n+32(FP), SI
	SHLQ $4, SI
	ADDQ R10, SI
	SUBQ $seq__size, SI
	MOVQ tabs+40(FP), DX
	MOVQ st+48(FP), DI
	MOVQ seqState_c(DI), AX
	MOVQ seqState_nbits(DI), BX
	MOVQ seqState_ll(DI), R11
	MOVQ seqState_ml(DI), R12
	MOVQ seqState_of(DI), R13

loop:
	// The codes are read a byte each (all are below 64: in range of the
	// tables), the extra bits' count too.
	MOVBLZX (seq_code+2)(SI), DI
	SYMBOL(seqTables_of, R13)

	MOVBLZX (seq_code+1)(SI), DI
	SYMBOL(seqTables_ml, R12)

	MOVBLZX seq_code(SI), DI
	SYMBOL(seqTables_ll, R11)

	CMPQ R8, R9
	JHI  bail

	// The extra bits: at most 30 fit the container after the states (at
	// most 7 + 26 bits pending); more go out in two halves.
	MOVBLZX (seq_code+3)(SI), R14
	CMPL R14, $30
	JHI  long
	MOVQ seq_extra(SI), R15
	MOVQ BX, CX
	SHLQ CX, R15
	ORQ  R15, AX
	ADDQ R14, BX

next:
	FLUSH
	SUBQ $seq__size, SI
	CMPQ SI, R10
	JHS  loop

	MOVQ st+48(FP), DI
	MOVQ AX, seqState_c(DI)
	MOVQ BX, seqState_nbits(DI)
	MOVQ R11, seqState_ll(DI)
	MOVQ R12, seqState_ml(DI)
	MOVQ R13, seqState_of(DI)

bail:
	SUBQ out+0(FP), R8
	MOVQ R8, ret+56(FP)
	RET

long:
	FLUSH
	MOVQ seq_extra(SI), R15
	CMPL R14, $32
	JHI  halves
	MOVQ BX, CX
	SHLQ CX, R15
	ORQ  R15, AX
	ADDQ R14, BX
	JMP  next

halves:
	MOVL R15, DI // the low 32 bits
	MOVQ BX, CX
	SHLQ CX, DI
	ORQ  DI, AX
	ADDQ $32, BX
	FLUSH
	SHRQ $32, R15
	MOVQ BX, CX
	SHLQ CX, R15
	ORQ  R15, AX
	SUBL $32, R14
	ADDQ R14, BX
	JMP  next

// The same loop with BMI2's shifts and bit field extract, which take their
// count from any register: no traffic through CX, no lowMask load.
#define SYMBOL_BMI2(TAB, STATE) \
	MOVL    (TAB+fseTable_tt)(DX)(DI*8), CX \
	ADDL    STATE, CX \
	SHRL    $16, CX \
	BZHIL   CX, STATE, R15 \
	SHRXL   CX, STATE, STATE \
	ADDL    (TAB+fseTable_tt+4)(DX)(DI*8), STATE \
	MOVWLZX (TAB+fseTable_st)(DX)(STATE*2), STATE \
	SHLXQ   BX, R15, R15 \
	ORQ     R15, AX \
	ADDQ    CX, BX

#define FLUSH_BMI2 \
	MOVQ  AX, (R8) \
	MOVQ  BX, CX \
	ANDQ  $0x38, CX \
	SHRXQ CX, AX, AX \
	SHRQ  $3, CX \
	ADDQ  CX, R8 \
	ANDQ  $7, BX

// func seqLoopBMI2(out *byte, pos, limit int, seqs *seq, n int, tabs *seqTables, st *seqState) int
// Two sequences an iteration while the write pointer is at least 24 bytes
// before limit (PAIRSAFE): the two write at most 43 bytes past it, within
// limit+24, and the first ends at most 21 bytes on, below limit, so the
// check before the second would pass anyway; one check and one pointer
// step a pair. The last sequence, and those near limit, go one at a time
// with the check each. (PAIREND and PAIRSAFE, its frame slots, are
// defined at the top of the file.)
// The states and extra bits of the sequence at OFF(SI), then whole bytes
// spilled; LONG handles extra bits over 30 and returns to DONE.
#define SEQ_BMI2(OFF, LONG, DONE) \
	MOVBLZX (seq_code+2+OFF)(SI), DI \
	SYMBOL_BMI2(seqTables_of, R13) \
	MOVBLZX (seq_code+1+OFF)(SI), DI \
	SYMBOL_BMI2(seqTables_ml, R12) \
	MOVBLZX (seq_code+OFF)(SI), DI \
	SYMBOL_BMI2(seqTables_ll, R11) \
	MOVBLZX (seq_code+3+OFF)(SI), R14 \
	CMPL    R14, $30 \
	JHI     LONG \
	MOVQ    (seq_extra+OFF)(SI), R15 \
	SHLXQ   BX, R15, R15 \
	ORQ     R15, AX \
	ADDQ    R14, BX \
DONE: \
	FLUSH_BMI2

TEXT ·seqLoopBMI2(SB), NOSPLIT, $16-64
	MOVQ out+0(FP), DI
	MOVQ pos+8(FP), R8
	ADDQ DI, R8
	MOVQ limit+16(FP), R9
	ADDQ DI, R9
	MOVQ seqs+24(FP), R10
	MOVQ n+32(FP), SI
	SHLQ $4, SI
	ADDQ R10, SI
	SUBQ $seq__size, SI
	MOVQ tabs+40(FP), DX
	MOVQ st+48(FP), DI
	MOVQ seqState_c(DI), AX
	MOVQ seqState_nbits(DI), BX
	MOVQ seqState_ll(DI), R11
	MOVQ seqState_ml(DI), R12
	MOVQ seqState_of(DI), R13
	LEAQ seq__size(R10), CX
	MOVQ CX, PAIREND
	LEAQ -24(R9), CX
	MOVQ CX, PAIRSAFE

bpair:
	CMPQ SI, PAIREND
	JCS  btail
	CMPQ R8, PAIRSAFE
	JHI  bloop
	SEQ_BMI2(0, blongA, bdoneA)
	SEQ_BMI2(-seq__size, blongB, bdoneB)
	SUBQ $(2*seq__size), SI
	JMP  bpair

btail:
	CMPQ SI, R10
	JCS  bend

bloop:
	// The codes are read a byte each (all are below 64: in range of the
	// tables), the extra bits' count too.
	MOVBLZX (seq_code+2)(SI), DI
	SYMBOL_BMI2(seqTables_of, R13)

	MOVBLZX (seq_code+1)(SI), DI
	SYMBOL_BMI2(seqTables_ml, R12)

	MOVBLZX seq_code(SI), DI
	SYMBOL_BMI2(seqTables_ll, R11)

	CMPQ R8, R9
	JHI  bbail

	MOVBLZX (seq_code+3)(SI), R14
	CMPL R14, $30
	JHI  blong
	MOVQ  seq_extra(SI), R15
	SHLXQ BX, R15, R15
	ORQ   R15, AX
	ADDQ  R14, BX

bnext:
	FLUSH_BMI2
	SUBQ $seq__size, SI
	CMPQ SI, R10
	JHS  bloop

bend:
	MOVQ st+48(FP), DI
	MOVQ AX, seqState_c(DI)
	MOVQ BX, seqState_nbits(DI)
	MOVQ R11, seqState_ll(DI)
	MOVQ R12, seqState_ml(DI)
	MOVQ R13, seqState_of(DI)

bbail:
	SUBQ out+0(FP), R8
	MOVQ R8, ret+56(FP)
	RET

blong:
	FLUSH_BMI2
	MOVQ seq_extra(SI), R15
	CMPL R14, $32
	JHI  bhalves
	SHLXQ BX, R15, R15
	ORQ   R15, AX
	ADDQ  R14, BX
	JMP   bnext

bhalves:
	MOVL  R15, DI // the low 32 bits
	SHLXQ BX, DI, DI
	ORQ   DI, AX
	ADDQ  $32, BX
	FLUSH_BMI2
	SHRQ  $32, R15
	SHLXQ BX, R15, R15
	ORQ   R15, AX
	SUBL  $32, R14
	ADDQ  R14, BX
	JMP   bnext

// The pair loop's long extra bits, as blong and bhalves do them.
#define LONG_BMI2(OFF, DONE, HALVES) \
	FLUSH_BMI2 \
	MOVQ  (seq_extra+OFF)(SI), R15 \
	CMPL  R14, $32 \
	JHI   HALVES \
	SHLXQ BX, R15, R15 \
	ORQ   R15, AX \
	ADDQ  R14, BX \
	JMP   DONE \
HALVES: \
	MOVL  R15, DI \
	SHLXQ BX, DI, DI \
	ORQ   DI, AX \
	ADDQ  $32, BX \
	FLUSH_BMI2 \
	SHRQ  $32, R15 \
	SHLXQ BX, R15, R15 \
	ORQ   R15, AX \
	SUBL  $32, R14 \
	ADDQ  R14, BX \
	JMP   DONE

blongA:
	LONG_BMI2(0, bdoneA, bhalvesA)

blongB:
	LONG_BMI2(-seq__size, bdoneB, bhalvesB)
