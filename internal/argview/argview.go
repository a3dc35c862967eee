// Package argview locates the typed arguments of one event in its raw
// bytes, without allocating: the exporters and the analysis read lanes, flow
// ids, durations and values through it. It applies the original reader's
// rule: only the first arg_count arguments that are wholly present exist.
package argview

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/chronon-sim/chronon-go/schema"
)

// View locates the arguments of one event in its raw bytes. Only the
// first arg_count arguments that are wholly present exist, as the original
// reader decides.
type View struct {
	raw   []byte
	Types []schema.ArgType
	off   [256]uint32
	n     int
}

// Reset points the view at an event: its format's argument types, its raw
// argument bytes and its arg_count.
func (v *View) Reset(types []schema.ArgType, raw []byte, argCount int) {
	v.ResetFirst(types, raw, argCount, len(types))
}

// ResetFirst is Reset locating only the first n arguments: a caller that
// reads none after them skips walking the strings that follow.
func (v *View) ResetFirst(types []schema.ArgType, raw []byte, argCount, n int) {
	v.raw, v.Types, v.n = raw, types, 0
	p := 0
	for i := 0; i < len(types) && i < argCount && i < n && p < len(raw); i++ {
		size := types[i].Size()
		if types[i] == schema.ArgString {
			end := bytes.IndexByte(raw[p:], 0)
			if end < 0 {
				return // no NUL: the argument is not there
			}
			size = end + 1
		}
		if size == 0 || p+size > len(raw) {
			return
		}
		v.off[i] = uint32(p)
		v.n = i + 1
		p += size
	}
}

// Has reports whether argument i exists (i < 0 never does).
func (v *View) Has(i int) bool { return i >= 0 && i < v.n }

func (v *View) bytes(i int) []byte { return v.raw[v.off[i]:] }

// Uint returns an integer argument as uint64 (signed ones sign-extended,
// floats truncated).
func (v *View) Uint(i int) uint64 { return UintAt(v.Types[i], v.bytes(i)) }

// UintAt converts the argument of type t at the start of b as Uint does;
// b holds at least t.Size() bytes. A caller that knows an argument's
// offset (all the arguments before it fixed-size) reads it without a View.
func UintAt(t schema.ArgType, b []byte) uint64 {
	le := binary.LittleEndian
	switch t {
	case schema.ArgInt8:
		return uint64(int64(int8(b[0])))
	case schema.ArgInt16:
		return uint64(int64(int16(le.Uint16(b))))
	case schema.ArgInt32:
		return uint64(int64(int32(le.Uint32(b))))
	case schema.ArgUInt8, schema.ArgBool:
		return uint64(b[0])
	case schema.ArgUInt16:
		return uint64(le.Uint16(b))
	case schema.ArgUInt32:
		return uint64(le.Uint32(b))
	case schema.ArgInt64, schema.ArgUInt64, schema.ArgPointer:
		return le.Uint64(b)
	case schema.ArgFloat:
		return uint64(math.Float32frombits(le.Uint32(b)))
	case schema.ArgDouble:
		return uint64(math.Float64frombits(le.Uint64(b)))
	}
	return 0
}

// Float returns a floating point argument (integers converted).
func (v *View) Float(i int) float64 {
	b, le := v.bytes(i), binary.LittleEndian
	switch v.Types[i] {
	case schema.ArgFloat:
		return float64(math.Float32frombits(le.Uint32(b)))
	case schema.ArgDouble:
		return math.Float64frombits(le.Uint64(b))
	}
	return float64(int64(v.Uint(i)))
}

// Str returns a String argument without its NUL.
func (v *View) Str(i int) []byte {
	b := v.bytes(i)
	for j, c := range b {
		if c == 0 {
			return b[:j]
		}
	}
	return b
}

// HexValue is the value a {:x} placeholder prints: a negative Int8..Int32
// as its 32-bit two's complement, as C's %x of the promoted int does.
func (v *View) HexValue(i int) uint64 {
	u := v.Uint(i)
	switch v.Types[i] {
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32:
		return u & 0xFFFFFFFF
	}
	return u
}
