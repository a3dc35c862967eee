package ctext

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/decimal"
	"github.com/chronon-sim/chronon-go/schema"
)

// Fast path of dump lines for formats whose placeholders all take
// fixed-size arguments (the common case): the line's maximum length is known,
// so the buffer grows once and everything is written in place (Lines).

// maxArgWidth is the longest text of a fixed-size argument.
func maxArgWidth(t schema.ArgType) int {
	switch t {
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32:
		return 11
	case schema.ArgUInt8, schema.ArgUInt16, schema.ArgUInt32:
		return 10
	case schema.ArgInt64, schema.ArgUInt64:
		return 20
	case schema.ArgPointer:
		return 18
	case schema.ArgBool:
		return 5
	}
	return 0 // floats: not on the fast path
}

// putSlack is the room past its text a line writer may scribble on.
const putSlack = 8

// putUint writes v in decimal at b[n:] and returns the new end.
func putUint(b []byte, n int, v uint64) int {
	l := decimal.Len(v)
	decimal.Put(b[n:n+l], v, l)
	return n + l
}

func putHex(b []byte, n int, v uint64) int {
	l := (bits.Len64(v|1) + 3) >> 2
	for i := n + l - 1; i >= n; i-- {
		b[i] = hexDigits[v&15]
		v >>= 4
	}
	return n + l
}

// putInt32 writes a value C promoted to int: %d, or %x of its 32-bit two's
// complement. The sign is written without a branch (it is random in
// real data); a positive number then overwrites it.
func putInt32(b []byte, n int, v int32, hex bool) int {
	if hex {
		return putHex(b, n, uint64(uint32(v)))
	}
	neg := v >> 31 // 0 or -1
	b[n] = '-'
	n += int(uint32(v) >> 31)
	return putUint(b, n, uint64(uint32((v^neg)-neg)))
}

// putCycle writes "[%10d]".
func putCycle(b []byte, n int, c uint64) int {
	l := decimal.Len(c)
	b[n] = '['
	n++
	for ; l < 10; l++ {
		b[n] = ' '
		n++
	}
	n = putUint(b, n, c)
	b[n] = ']'
	return n + 1
}

// boolWords holds "false" and "true" as little-endian words: a bool prints
// with one store and no branch.
var boolWords = [2]struct {
	word uint64
	n    int
}{{0x65736c6166, 5}, {0x65757274, 4}}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendFastLine appends the line of an event whose format takes the fast
// path (f.lineFast, enough arguments and bytes).
func appendFastLine(dst []byte, cycle uint64, prefix []byte, f *Format, args []byte) []byte {
	var cc CycleCache
	return cc.appendFastLine(dst, cycle, prefix, f, args)
}

// CycleCache remembers the last "[%10d]" written: in cycle order many
// consecutive lines share their cycle. The zero value is ready to use.
type CycleCache struct {
	cycle uint64
	n     int
	text  [24]byte
	ok    bool
}

func (cc *CycleCache) put(b []byte, n int, cycle uint64) int {
	if !cc.ok || cycle != cc.cycle {
		cc.n = putCycle(cc.text[:], 0, cycle)
		cc.cycle, cc.ok = cycle, true
	}
	return n + copy(b[n:], cc.text[:cc.n])
}

func (cc *CycleCache) appendFastLine(dst []byte, cycle uint64, prefix []byte, f *Format, args []byte) []byte {
	dst = slices.Grow(dst, f.maxLine+len(prefix)+putSlack)
	n := len(dst)
	b := dst[:cap(dst)]
	n = cc.put(b, n, cycle)
	n += copy(b[n:], prefix)
	le := binary.LittleEndian
	for i := range f.ops {
		op := &f.ops[i]
		n += copy(b[n:], op.lit)
		a := args[op.off:]
		switch op.typ {
		case schema.ArgUInt64:
			if op.hex {
				n = putHex(b, n, le.Uint64(a))
			} else {
				n = putUint(b, n, le.Uint64(a))
			}
		case schema.ArgUInt32:
			if op.hex {
				n = putHex(b, n, uint64(le.Uint32(a)))
			} else {
				n = putUint(b, n, uint64(le.Uint32(a)))
			}
		case schema.ArgUInt16:
			if op.hex {
				n = putHex(b, n, uint64(le.Uint16(a)))
			} else {
				n = putUint(b, n, uint64(le.Uint16(a)))
			}
		case schema.ArgUInt8:
			if op.hex {
				n = putHex(b, n, uint64(a[0]))
			} else {
				n = putUint(b, n, uint64(a[0]))
			}
		case schema.ArgInt8:
			n = putInt32(b, n, int32(int8(a[0])), op.hex)
		case schema.ArgInt16:
			n = putInt32(b, n, int32(int16(le.Uint16(a))), op.hex)
		case schema.ArgInt32:
			n = putInt32(b, n, int32(le.Uint32(a)), op.hex)
		case schema.ArgInt64:
			v := le.Uint64(a)
			switch {
			case op.hex:
				n = putHex(b, n, v)
			case int64(v) < 0:
				b[n] = '-'
				n = putUint(b, n+1, -v)
			default:
				n = putUint(b, n, v)
			}
		case schema.ArgPointer:
			b[n], b[n+1] = '0', 'x'
			n = putHex(b, n+2, le.Uint64(a))
		case schema.ArgBool:
			w := &boolWords[b2i(a[0] != 0)]
			le.PutUint64(b[n:], w.word)
			n += w.n
		}
	}
	n += copy(b[n:], f.tail)
	b[n] = '\n'
	return b[:n+1]
}
