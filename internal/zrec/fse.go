package zrec

import (
	"math"
	"math/bits"
)

// FSE (tANS) tables for the three sequence symbol types.
//
// The decoder rebuilds its table from the normalized counts alone, so the
// encoder must lay out states exactly as the format prescribes: symbols with
// probability "-1" (less than one) take the highest cells, the others are
// spread with step (size>>1)+(size>>3)+3, skipping the reserved top cells.

const (
	maxTableLog   = 9 // room for the largest table (LL/ML accuracy log 9)
	maxTableSize  = 1 << maxTableLog
	llMaxLog      = 9 // RFC 8878: Accuracy_Log <= 9 for literal lengths
	mlMaxLog      = 9 // ... and match lengths
	ofMaxLog      = 8 // ... and <= 8 for offsets
	minNCountLog  = 5 // smallest Accuracy_Log a table description can carry
	maxSymbolSize = 64
)

// symbolTT is the per-symbol transform of the classic FSE encoder:
// nbBitsOut = (state + deltaNbBits) >> 16 and the next state is
// stateTable[(state >> nbBitsOut) + deltaFindState].
type symbolTT struct {
	deltaNbBits    uint32
	deltaFindState int32
}

// fseTable is an FSE compression table. States live in [size, 2*size).
type fseTable struct {
	tableLog uint8
	st       [maxTableSize]uint16
	tt       [maxSymbolSize]symbolTT
}

// build fills the table from normalized counts (-1 = "less than one").
// tableLog 0 with a single count of 1 gives an RLE table: zero bits per
// symbol and a zero-width final state, which is exactly what the decoder's
// RLE mode consumes, so the sequence loop needs no special case.
func (t *fseTable) build(norm []int16, tableLog uint8) {
	const cellMask = maxTableSize - 1 // index masks: no bounds checks
	size := 1 << tableLog
	mask := size - 1
	high := size - 1
	// next[s] starts as the first state-table slot of symbol s (the states
	// of a symbol are stored consecutively, in cell order).
	var next [256]uint16
	var cell [maxTableSize]uint8
	first := uint16(0)
	for s, c := range norm {
		next[s&255] = first
		if c == -1 {
			first++
			cell[high&cellMask] = uint8(s)
			high--
		} else {
			first += uint16(c)
		}
	}
	step := size>>1 + size>>3 + 3
	pos := 0
	if high == size-1 {
		// No low-probability symbols: the step visits every cell. pos is
		// reduced only when used, which keeps the loop-carried chain to
		// a single add.
		for s, c := range norm {
			for i := int16(0); i < c; i++ {
				cell[pos&mask&cellMask] = uint8(s)
				pos += step
			}
		}
	} else {
		for s, c := range norm {
			for i := int16(0); i < c; i++ {
				cell[pos&cellMask] = uint8(s)
				pos = (pos + step) & mask
				for pos > high {
					pos = (pos + step) & mask
				}
			}
		}
	}
	for u := 0; u < size; u++ {
		s := cell[u&cellMask]
		n := next[s]
		t.st[n&cellMask] = uint16(size + u)
		next[s] = n + 1
	}
	total := int32(0)
	tl := uint32(tableLog)
	for s, c := range norm {
		tt := &t.tt[s&(maxSymbolSize-1)]
		switch {
		case c == 0:
			tt.deltaNbBits, tt.deltaFindState = 0, 0
		case c == -1 || c == 1:
			tt.deltaNbBits, tt.deltaFindState = tl<<16-uint32(size), total-1
			total++
		default:
			maxBitsOut := tl - uint32(bits.Len32(uint32(c-1))-1)
			minStatePlus := uint32(c) << maxBitsOut
			tt.deltaNbBits, tt.deltaFindState = maxBitsOut<<16-minStatePlus, total-int32(c)
			total += int32(c)
		}
	}
	t.tableLog = tableLog
}

// initState returns the state that encodes symbol s without emitting bits
// (the state of the last sequence, read first by the decoder).
func (t *fseTable) initState(s uint8) uint32 {
	tt := t.tt[s&(maxSymbolSize-1)]
	nb := (tt.deltaNbBits + 1<<15) >> 16
	v := nb<<16 - tt.deltaNbBits
	return uint32(t.st[(int32(v>>nb)+tt.deltaFindState)&(maxTableSize-1)])
}

// optimalTableLog picks an accuracy log: large enough for the alphabet, no
// larger than the sample justifies (fewer sequences -> smaller table, whose
// description is cheaper), within [5, maxLog].
func optimalTableLog(maxLog uint8, nbSeq uint32, maxSym int) uint8 {
	tl := int(maxLog)
	maxBitsSrc := bits.Len32(nbSeq-1) - 1 - 2
	minBitsSrc := bits.Len32(nbSeq)
	minBitsSym := bits.Len32(uint32(maxSym)) + 1
	minBits := min(minBitsSrc, minBitsSym)
	if maxBitsSrc < tl {
		tl = maxBitsSrc
	}
	if minBits > tl {
		tl = minBits
	}
	return uint8(max(minNCountLog, min(tl, int(maxLog))))
}

// normalize scales hist (summing to total) to counts summing to 1<<tableLog,
// every present symbol getting at least 1. Rounding excess is taken from the
// largest counts, where it costs the least. The caller guarantees that the
// number of present symbols is <= 1<<tableLog.
func normalize(norm []int16, hist []uint32, total uint32, tableLog uint8) {
	size := 1 << tableLog
	sum, largest := 0, 0
	for s, c := range hist {
		if c == 0 {
			norm[s] = 0
			continue
		}
		p := int((uint64(c)<<tableLog + uint64(total)/2) / uint64(total))
		if p < 1 {
			p = 1
		}
		norm[s] = int16(p)
		sum += p
		if p > int(norm[largest]) {
			largest = s
		}
	}
	diff := size - sum
	if diff >= 0 || -diff < int(norm[largest])/2 {
		norm[largest] += int16(diff)
		return
	}
	for diff < 0 {
		big := 0
		for s := range hist {
			if norm[s] > norm[big] {
				big = s
			}
		}
		take := min(-diff, int(norm[big])/2)
		if take < 1 {
			take = 1
		}
		norm[big] -= int16(take)
		diff += take
	}
}

// appendNCount appends the FSE table description (RFC 8878 4.1.1) of norm.
// Values are written as count+1 with the variable-width code the decoder
// derives from the remaining probability; a zero count is followed by
// 2-bit repeat flags for further zeros.
func appendNCount(out []byte, norm []int16, tableLog uint8) []byte {
	size := 1 << tableLog
	remaining := size + 1
	threshold := size
	nbBits := uint(tableLog) + 1
	acc := uint64(tableLog - minNCountLog)
	nacc := uint(4)
	prevZero := false
	for s := 0; s < len(norm) && remaining > 1; {
		if prevZero {
			start := s
			for s < len(norm) && norm[s] == 0 {
				s++
			}
			for s >= start+24 {
				start += 24
				acc |= 0xFFFF << nacc
				out = append(out, byte(acc), byte(acc>>8))
				acc >>= 16
			}
			for s >= start+3 {
				start += 3
				acc |= 3 << nacc
				nacc += 2
			}
			acc |= uint64(s-start) << nacc
			nacc += 2
			if nacc > 16 {
				out = append(out, byte(acc), byte(acc>>8))
				acc >>= 16
				nacc -= 16
			}
		}
		count := int(norm[s])
		s++
		maxv := 2*threshold - 1 - remaining
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		count++
		if count >= threshold {
			count += maxv
		}
		acc |= uint64(count) << nacc
		nacc += nbBits
		if count < maxv {
			nacc--
		}
		prevZero = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		if nacc > 16 {
			out = append(out, byte(acc), byte(acc>>8))
			acc >>= 16
			nacc -= 16
		}
	}
	for ; nacc > 0; nacc -= min(nacc, 8) {
		out = append(out, byte(acc))
		acc >>= 8
	}
	return out
}

// log2Fix[i] = 256*log2(i): cost model for choosing table modes.
var log2Fix [maxTableSize + 1]uint32

func init() {
	for i := 1; i <= maxTableSize; i++ {
		log2Fix[i] = uint32(math.Round(256 * math.Log2(float64(i))))
	}
}

// cost estimates, in 1/256 bits, the state bits needed to code hist with
// norm (accuracy log tableLog). ok is false if a used symbol has no cell.
func cost(hist []uint32, norm []int16, tableLog uint8) (c uint64, ok bool) {
	top := uint32(tableLog) << 8
	for s, h := range hist {
		if h == 0 {
			continue
		}
		if s >= len(norm) || norm[s] == 0 {
			return 0, false
		}
		p := int(norm[s])
		if p < 0 {
			p = 1
		}
		c += uint64(h) * uint64(top-log2Fix[p])
	}
	return c, true
}

// Predefined distributions (RFC 8878 3.1.1.3.2.2), used when a block has
// too few sequences to pay for a table description.
var (
	llPredef = []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
		-1, -1, -1, -1}
	mlPredef = []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	ofPredef = []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}

	llPredefTable, mlPredefTable, ofPredefTable fseTable
)

const (
	llPredefLog = 6
	mlPredefLog = 6
	ofPredefLog = 5
)

func init() {
	llPredefTable.build(llPredef, llPredefLog)
	mlPredefTable.build(mlPredef, mlPredefLog)
	ofPredefTable.build(ofPredef, ofPredefLog)
}
