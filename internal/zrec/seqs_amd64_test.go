//go:build amd64 && !noasm

package zrec

import (
	"bytes"
	"testing"
)

// TestSeqLoopAsmMatchesGo: the assembly sequence loop writes exactly the
// bits of the Go loop and ends in the same state, on the sequences and
// tables of real blocks (every coverage input, W1 blocks, long literal and
// match lengths, new offsets), and both stop past a limit they cannot meet.
func TestSeqLoopAsmMatchesGo(t *testing.T) {
	inputs := coverageInputs()
	blocks, _ := w1Blocks(30_000, 16, 64<<10, 3)
	for _, b := range blocks {
		inputs = append(inputs, namedInput{"w1", b})
	}
	inputs = append(inputs, namedInput{"many-sequences", manySequencesSrc()},
		namedInput{"extras-31", longExtras(32, 20000)}, namedInput{"extras-41", longExtras(3000, 40000)})
	e := newTestEncoder()
	checked, long := 0, map[bool]int{}
	for _, in := range inputs {
		// One zstd block (at most 128 KiB) leaves its sequences and tables
		// in the encoder.
		src := in.src[:min(len(in.src), maxBlockSize)]
		if in.name == "many-sequences" {
			manySequencesFrame(e)
		} else {
			e.EncodeAll(src, nil)
		}
		n := len(e.seqs)
		if n < 2 || e.tabs.ll.tableLog+e.tabs.ml.tableLog+e.tabs.of.tableLog == 0 {
			continue
		}
		for _, s := range e.seqs[:n-1] {
			if eb := s.code >> 24; eb > 30 {
				long[eb > 32]++
			}
		}
		last := e.seqs[n-1]
		st0 := seqState{c: 0x5A, nbits: 7,
			ll: uint64(e.tabs.ll.initState(uint8(last.code))),
			ml: uint64(e.tabs.ml.initState(uint8(last.code >> 8))),
			of: uint64(e.tabs.of.initState(uint8(last.code >> 16)))}
		size := 16*n + 64
		outG := make([]byte, size)
		stG := st0
		posG := seqLoopGo(outG, 3, size-24, e.seqs[:n-1], &e.tabs, &stG)
		for _, v := range asmLoops() {
			outA, stA := make([]byte, size), st0
			posA := v.loop(&outA[0], 3, size-24, &e.seqs[0], n-1, &e.tabs, &stA)
			if posA != posG || stA != stG || !bytes.Equal(outA, outG) {
				t.Fatalf("%s (%d sequences): %s pos %d state %+v, Go pos %d state %+v, bytes equal %v",
					in.name, n, v.name, posA, stA, posG, stG, bytes.Equal(outA, outG))
			}
			stA = st0
			short := 3 + (posG-3)/2
			posA = v.loop(&outA[0], 3, short, &e.seqs[0], n-1, &e.tabs, &stA)
			if posA <= short {
				t.Fatalf("%s: with limit %d, which the Go loop passes (%d), %s returns %d", in.name, short, posG, v.name, posA)
			}
		}
		// Limits around the stream's end, where the BMI2 loop leaves its
		// two-sequence iterations for the one-at-a-time loop: the same
		// bits, the same position (past limit at the same sequence), and
		// no byte written beyond limit+24.
		for limit := max(3, posG-64); limit <= posG+4; limit++ {
			outL := make([]byte, limit+24+32)
			stL := st0
			posL := seqLoopGo(outL, 3, limit, e.seqs[:n-1], &e.tabs, &stL)
			for _, v := range asmLoops() {
				outA, stA := make([]byte, len(outL)), st0
				for i := limit + 24; i < len(outA); i++ {
					outA[i] = 0xA5
				}
				posA := v.loop(&outA[0], 3, limit, &e.seqs[0], n-1, &e.tabs, &stA)
				for i := limit + 24; i < len(outA); i++ {
					if outA[i] != 0xA5 {
						t.Fatalf("%s: with limit %d %s wrote byte %d, past limit+24", in.name, limit, v.name, i)
					}
				}
				if posA != posL || (posL <= limit && (stA != stL || !bytes.Equal(outA[:limit+24], outL[:limit+24]))) {
					t.Fatalf("%s (%d sequences), limit %d: %s pos %d state %+v, Go pos %d state %+v",
						in.name, n, limit, v.name, posA, stA, posL, stL)
				}
			}
		}
		checked++
	}
	if checked < 20 || long[false] == 0 || long[true] == 0 {
		t.Fatalf("%d blocks with sequences checked, %d sequences of 31-32 extra bits, %d of more: want them all", checked, long[false], long[true])
	}
}

type seqLoopFunc = func(out *byte, pos, limit int, seqs *seq, n int, tabs *seqTables, st *seqState) int

// asmLoops are the assembly sequence loops this CPU runs.
func asmLoops() []struct {
	name string
	loop seqLoopFunc
} {
	l := []struct {
		name string
		loop seqLoopFunc
	}{{"seqLoopAsm", seqLoopAsm}}
	if hasBMI2 {
		l = append(l, struct {
			name string
			loop seqLoopFunc
		}{"seqLoopBMI2", seqLoopBMI2})
	} else {
		println("!!!!! no BMI2 on this CPU: seqLoopBMI2 is not tested !!!!!")
	}
	return l
}

// longExtras is an event of format 1 with argLen random argument bytes, one
// of format 2 with llLen random bytes, and the first again: its match comes
// after some llLen literals at a distance of about llLen+argLen, so its
// extra bits (literal length, match length, offset) add up to over 30.
func longExtras(argLen, llLen int) []byte {
	args := randomBytes(argLen, 1)
	b := appendEvent(nil, 1, 1, 0, 0, 1, args)
	b = appendEvent(b, 2, 2, 0, 0, 1, randomBytes(llLen, 2))
	for i := range 4 { // and a few more, so that it is not the block's last sequence
		b = appendEvent(b, 3, 1, 0, 0, 1, args)
		args[0] = byte(i)
	}
	return b
}
