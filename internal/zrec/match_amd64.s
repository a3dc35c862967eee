//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

// matchAsm is the fast path of findSequences (match.go) in assembly: the
// same events, the same masks, runs and sequences, event after event,
// until it meets an event the Go loop must take (near the end of src, no
// predecessor, a size that differs from the predecessor's or exceeds
// fastMax, an offset beyond maxOffset). It returns at that event's start,
// before changing anything for it, with the state in e.mr.
//
// Registers: R8 src, R9 p, R10 event size, R11/R12 scratch (the equal-byte
// mask, then the run starts and ends), R13 litStart, R14 cStart, R15 cEnd,
// BX cOff, DI the next literal byte, SI the next sequence, DX e, AX/CX
// scratch. The rest of the state lives in the frame.

#define FASTEND  8(SP)
#define DIST     16(SP)
#define PREVPOS  24(SP)
#define PREVSIZE 32(SP)
#define EVENTS   40(SP)
#define MINC     48(SP)
#define MAXC     56(SP)
#define LBASE    64(SP)
#define SBASE    72(SP)
#define T0       80(SP)
#define T1       88(SP)
#define T2       96(SP)
#define T3       104(SP)
#define LITEND   112(SP)
#define SEQ0     120(SP)
#define SLOWN    128(SP)

// One 16-byte slice of the equal-byte mask: bytes OFF..OFF+15 of the event
// (AX) against its predecessor's (CX), into bits OFF.. of R11.
#define EQ16(OFF) \
	MOVOU    OFF(AX), X0 \
	MOVOU    OFF(CX), X1 \
	PCMPEQB  X1, X0 \
	PMOVMSKB X0, R12 \
	SHLQ     $OFF, R12 \
	ORQ      R12, R11

// func matchAsm(e *Encoder, src, lits, seqs unsafe.Pointer)
TEXT ·matchAsm(SB), NOSPLIT, $136-32
	MOVQ e+0(FP), DX
	MOVQ src+8(FP), R8
	MOVQ lits+16(FP), AX
	MOVQ AX, LBASE
	MOVQ seqs+24(FP), AX
	MOVQ AX, SBASE
	MOVQ (Encoder_mr+matchRegs_fastEnd)(DX), AX
	MOVQ AX, FASTEND
	MOVQ (Encoder_mr+matchRegs_prevPos)(DX), AX
	MOVQ AX, PREVPOS
	MOVQ (Encoder_mr+matchRegs_prevSize)(DX), AX
	MOVQ AX, PREVSIZE
	MOVQ (Encoder_mr+matchRegs_events)(DX), AX
	MOVQ AX, EVENTS
	MOVQ (Encoder_mr+matchRegs_minC)(DX), AX
	MOVQ AX, MINC
	MOVQ (Encoder_mr+matchRegs_maxC)(DX), AX
	MOVQ AX, MAXC
	MOVQ (Encoder_mr+matchRegs_p)(DX), R9
	MOVQ (Encoder_mr+matchRegs_litStart)(DX), R13
	MOVQ (Encoder_mr+matchRegs_cStart)(DX), R14
	MOVQ (Encoder_mr+matchRegs_cEnd)(DX), R15
	MOVQ (Encoder_mr+matchRegs_cOff)(DX), BX
	MOVQ (Encoder_mr+matchRegs_nl)(DX), DI
	ADDQ LBASE, DI
	MOVQ (Encoder_mr+matchRegs_ns)(DX), SI
	SHLQ $4, SI
	ADDQ SBASE, SI
	MOVQ SI, SEQ0
	MOVQ $0, SLOWN

event:
	// The event at p: inside the fast region (which findSequences ends
	// fastMax bytes before the block's limit, so a small event there is
	// inside the block too), and small.
	CMPQ R9, FASTEND
	JHI  done
	MOVWQZX (R8)(R9*1), R10
	ADDQ $26, R10
	CMPQ R10, $const_fastMax
	JHI  done

	// Its predecessor: the last event of its format (tag-checked slot,
	// 16 bytes, indexed by the format id's low byte), or the previous event.
	MOVL    10(R8)(R9*1), AX
	MOVBQZX AX, CX
	SHLQ    $4, CX
	LEAQ    Encoder_fmts(DX)(CX*1), CX
	MOVQ    fmtSlot_pos(CX), R11
	TESTQ   R11, R11
	JEQ     useprev
	CMPL    fmtSlot_id(CX), AX
	JNE     useprev
	DECQ    R11
	MOVL    fmtSlot_size(CX), R12
	JMP     haveq

useprev:
	MOVQ  PREVPOS, R11
	MOVQ  PREVSIZE, R12
	TESTQ R11, R11
	JLT   done

haveq:
	// (The distance is below maxOffset: findSequences keeps fastEnd
	// there, and the distance is at most p.)
	CMPQ R12, R10
	JNE  done
	MOVQ R9, R12
	SUBQ R11, R12

	// The event is ours from here on.
	LEAQ 1(R9), R11
	MOVQ R11, fmtSlot_pos(CX)
	MOVL AX, fmtSlot_id(CX)
	MOVL R10, fmtSlot_size(CX)
	MOVQ R9, PREVPOS
	MOVQ R10, PREVSIZE
	MOVQ R12, DIST
	INCQ EVENTS
	// The cycle range, without branches: cycles out of order (an
	// out-of-order core's events) made these mispredict.
	MOVQ    2(R8)(R9*1), AX
	MOVQ    MINC, CX
	CMPQ    AX, CX
	CMOVQCS AX, CX
	MOVQ    CX, MINC
	MOVQ    MAXC, CX
	CMPQ    AX, CX
	CMOVQHI AX, CX
	MOVQ    CX, MAXC

	// The mask of bytes equal to the predecessor's (both 64-byte windows
	// are inside src: p <= fastEnd), cut to the event's size.
	LEAQ (R8)(R9*1), AX
	MOVQ AX, CX
	SUBQ R12, CX
	MOVOU    (AX), X0
	MOVOU    (CX), X1
	PCMPEQB  X1, X0
	PMOVMSKB X0, R11
	EQ16(16)
	EQ16(32)
	CMPQ R10, $48
	JLS  masked
	EQ16(48)

masked:
	// AX: the bits past the event; R11 &^= AX.
	MOVQ R10, CX
	MOVQ $-1, AX
	SHLQ CX, AX
	ORQ  AX, R11
	XORQ AX, R11

	// Head: the candidate ending here at the same distance grows by the
	// event's leading equal bytes.
	CMPQ R15, R9
	JNE  nohead
	CMPQ BX, DIST
	JNE  nohead
	// mask+1 has its lowest set bit just past the leading equal bytes
	// (the mask has a zero at the event's size), and mask & (mask+1)
	// clears them.
	LEAQ 1(R11), R12
	BSFQ R12, CX
	ADDQ CX, R15
	ANDQ R12, R11
	CMPQ CX, R10
	JCC  nextev

nohead:
	// keep: the runs of >= 3 equal bytes, and one touching the end.
	ORQ  R11, AX
	MOVQ AX, CX
	SHRQ $1, CX
	MOVQ AX, R12
	SHRQ $2, R12
	ANDQ CX, AX
	ANDQ R12, AX
	LEAQ (AX)(AX*1), CX
	MOVQ AX, R12
	SHLQ $2, R12
	ORQ  CX, AX
	ORQ  R12, AX
	ANDQ R11, AX
	JEQ  nextev

	// The runs by their first (R11) and last (R12) bytes.
	LEAQ (AX)(AX*1), R11
	NOTQ R11
	ANDQ AX, R11
	MOVQ AX, R12
	SHRQ $1, R12
	NOTQ R12
	ANDQ AX, R12

	// The candidate before them is complete: a sequence if long enough.
	MOVQ R15, AX
	SUBQ R14, AX
	CMPQ AX, $const_minRun
	JLT  advance

emit:
	// Sequence [R14, R15) at BX: first its literals, 16 bytes at a time
	// (src and lits have the room in the fast region; more than 16 only
	// outside the usual case).
	MOVQ  R14, AX
	SUBQ  R13, AX
	MOVOU (R8)(R13*1), X0
	MOVOU X0, (DI)
	LEAQ  -1(AX), CX
	CMPQ  CX, $15
	JCC   unusual
	ADDQ  AX, DI
	LEAQ  -const_minMatch(R15), CX
	SUBQ  R14, CX

	// The usual case: 1..15 literals, a match of 3..130 bytes at rep0:
	// the literal length is its code, the offset code is 0, both without
	// extra bits; the match length's code and extra bits come from
	// tables (one path for short and long matches: a test of the length
	// between them mispredicted on lengths that vary).
	CMPL BX, Encoder_reps(DX)
	JNE  slowcode
	CMPQ CX, $128
	JCC  slowcode
	MOVL    (Encoder_ct+codeTabs_mlSeq)(DX)(CX*4), R13
	ORL     AX, R13
	MOVL    R13, seq_code(SI)
	MOVBQZX (Encoder_ct+codeTabs_mlExtra)(DX)(CX*1), R13
	MOVQ    R13, seq_extra(SI)
	MOVBLZX (Encoder_ct+codeTabs_mlCode)(DX)(CX*1), R13
	INCL    Encoder_mlHist(DX)(R13*4)
	INCL    Encoder_llHist(DX)(AX*4)
	// (Its offset code, 0, is counted at the end, from the sequences
	// less those slowcode counted: an increment of one counter every
	// sequence is a chain through memory.)

coded:
	ADDQ $seq__size, SI
	MOVQ R15, R13

advance:
	// The next run; the last one becomes the candidate.
	BSFQ R11, R14
	ADDQ R9, R14
	BSFQ R12, R15
	LEAQ 1(R9)(R15*1), R15
	MOVQ DIST, BX
	LEAQ -1(R11), AX
	ANDQ AX, R11
	JEQ  nextev
	LEAQ -1(R12), AX
	ANDQ AX, R12
	JMP  emit

nextev:
	ADDQ R10, R9
	JMP  event

unusual:
	// No literals, or more than 15: the rest of the literals, if any,
	// and the sequence coded in full.
	CMPQ AX, $16
	JHI  longlits

litsok:
	ADDQ AX, DI
	LEAQ -const_minMatch(R15), CX
	SUBQ R14, CX
	JMP  slowcode

longlits:
	LEAQ (DI)(AX*1), CX
	MOVQ CX, LITEND
	LEAQ 16(R8)(R13*1), CX
	LEAQ 16(DI), R13

litloop:
	MOVOU (CX), X0
	MOVOU X0, (R13)
	ADDQ  $16, CX
	ADDQ  $16, R13
	CMPQ  R13, LITEND
	JCS   litloop
	JMP   litsok

slowcode:
	INCQ SLOWN
	// Any other sequence (AX literals, a match of CX+3 bytes at BX), as
	// codeSeq codes it: the Offset_Value with the repeat offsets, the
	// three codes and their extra bits.
	MOVQ R11, T0
	MOVQ R12, T1
	MOVQ AX, T2
	MOVQ CX, T3
	MOVL Encoder_reps(DX), R12
	MOVL (Encoder_reps+4)(DX), R13
	TESTQ AX, AX
	JEQ  ovll0
	CMPL BX, R12
	JNE  ov2
	MOVL $1, R11
	JMP  ovdone

ov2:
	CMPL BX, R13
	JNE  ov3
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	MOVL $2, R11
	JMP  ovdone

ov3:
	CMPL BX, (Encoder_reps+8)(DX)
	JNE  ovnew
	MOVL R13, (Encoder_reps+8)(DX)
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	MOVL $3, R11
	JMP  ovdone

ovll0:
	CMPL BX, R13
	JNE  ovll0b
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	MOVL $1, R11
	JMP  ovdone

ovll0b:
	CMPL BX, (Encoder_reps+8)(DX)
	JNE  ovll0c
	MOVL R13, (Encoder_reps+8)(DX)
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	MOVL $2, R11
	JMP  ovdone

ovll0c:
	LEAL -1(R12), R11
	CMPL BX, R11
	JNE  ovnew
	MOVL R13, (Encoder_reps+8)(DX)
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	MOVL $3, R11
	JMP  ovdone

ovnew:
	MOVL R13, (Encoder_reps+8)(DX)
	MOVL R12, (Encoder_reps+4)(DX)
	MOVL BX, Encoder_reps(DX)
	LEAL 3(BX), R11

ovdone:
	// Codes: R12 literal length, R13 match length, BX offset.
	CMPQ AX, $64
	JCC  llbig
	MOVBLZX (Encoder_ct+codeTabs_llCode)(DX)(AX*1), R12
	JMP  llok

llbig:
	BSRQ AX, R12
	ADDQ $19, R12

llok:
	CMPQ CX, $128
	JCC  mlbig
	MOVBLZX (Encoder_ct+codeTabs_mlCode)(DX)(CX*1), R13
	JMP  mlok

mlbig:
	BSRQ CX, R13
	ADDQ $36, R13

mlok:
	BSRL R11, BX
	INCL Encoder_llHist(DX)(R12*4)
	INCL Encoder_mlHist(DX)(R13*4)
	INCL Encoder_ofHist(DX)(BX*4)
	MOVBLZX (Encoder_ct+codeTabs_llBits)(DX)(R12*1), AX
	MOVBLZX (Encoder_ct+codeTabs_mlBits)(DX)(R13*1), CX
	SHLL $8, R13
	ORL  R13, R12
	MOVL BX, R13
	SHLL $16, R13
	ORL  R13, R12
	LEAL (AX)(CX*1), R13
	ADDL BX, R13
	SHLL $24, R13
	ORL  R13, R12
	MOVL R12, seq_code(SI)

	// Extra bits: the low lb bits of the literal length, then the low mb
	// of the match length, then the low ofc of the Offset_Value.
	MOVQ CX, R13
	MOVQ AX, CX
	MOVQ $1, R12
	SHLQ CX, R12
	DECQ R12
	ANDQ T2, R12
	MOVQ R12, T2
	MOVQ R13, CX
	MOVQ $1, R12
	SHLQ CX, R12
	DECQ R12
	ANDQ T3, R12
	MOVQ AX, CX
	SHLQ CX, R12
	ORQ  R12, T2
	ADDQ R13, AX
	MOVQ BX, CX
	MOVQ $1, R12
	SHLQ CX, R12
	DECQ R12
	ANDQ R11, R12
	MOVQ AX, CX
	SHLQ CX, R12
	ORQ  T2, R12
	MOVQ R12, seq_extra(SI)
	MOVQ T0, R11
	MOVQ T1, R12
	JMP  coded

done:
	// The usual sequences' offset code (see above).
	MOVQ SI, AX
	SUBQ SEQ0, AX
	SHRQ $4, AX
	SUBQ SLOWN, AX
	ADDL AX, Encoder_ofHist(DX)
	MOVQ R9, (Encoder_mr+matchRegs_p)(DX)
	MOVQ R13, (Encoder_mr+matchRegs_litStart)(DX)
	MOVQ R14, (Encoder_mr+matchRegs_cStart)(DX)
	MOVQ R15, (Encoder_mr+matchRegs_cEnd)(DX)
	MOVQ BX, (Encoder_mr+matchRegs_cOff)(DX)
	SUBQ LBASE, DI
	MOVQ DI, (Encoder_mr+matchRegs_nl)(DX)
	SUBQ SBASE, SI
	SHRQ $4, SI
	MOVQ SI, (Encoder_mr+matchRegs_ns)(DX)
	MOVQ PREVPOS, AX
	MOVQ AX, (Encoder_mr+matchRegs_prevPos)(DX)
	MOVQ PREVSIZE, AX
	MOVQ AX, (Encoder_mr+matchRegs_prevSize)(DX)
	MOVQ EVENTS, AX
	MOVQ AX, (Encoder_mr+matchRegs_events)(DX)
	MOVQ MINC, AX
	MOVQ AX, (Encoder_mr+matchRegs_minC)(DX)
	MOVQ MAXC, AX
	MOVQ AX, (Encoder_mr+matchRegs_maxC)(DX)
	RET
