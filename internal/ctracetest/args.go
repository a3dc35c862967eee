package ctracetest

import (
	"encoding/binary"
	"math"
)

// Args builds the argument bytes of an event, in the encoding of the
// format's arg_types.
type Args []byte

func (a Args) I8(v int8) Args   { return append(a, byte(v)) }
func (a Args) I16(v int16) Args { return binary.LittleEndian.AppendUint16(a, uint16(v)) }
func (a Args) I32(v int32) Args { return binary.LittleEndian.AppendUint32(a, uint32(v)) }
func (a Args) I64(v int64) Args { return binary.LittleEndian.AppendUint64(a, uint64(v)) }
func (a Args) U8(v uint8) Args  { return append(a, v) }
func (a Args) U16(v uint16) Args {
	return binary.LittleEndian.AppendUint16(a, v)
}
func (a Args) U32(v uint32) Args { return binary.LittleEndian.AppendUint32(a, v) }
func (a Args) U64(v uint64) Args { return binary.LittleEndian.AppendUint64(a, v) }
func (a Args) F32(v float32) Args {
	return binary.LittleEndian.AppendUint32(a, math.Float32bits(v))
}
func (a Args) F64(v float64) Args {
	return binary.LittleEndian.AppendUint64(a, math.Float64bits(v))
}
func (a Args) Ptr(v uint64) Args { return a.U64(v) }

// Str appends s and its terminating NUL.
func (a Args) Str(s string) Args { return append(append(a, s...), 0) }

func (a Args) Bool(v bool) Args {
	if v {
		return append(a, 1)
	}
	return append(a, 0)
}
