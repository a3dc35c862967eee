package mmapio

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/schema"
)

// Event is one decoded event. Its arguments point into the block it came
// from: into the mapped file for a raw block, into a pooled buffer for a
// compressed block. They are valid until the next step of the iteration;
// Clone copies what must outlive it.
type Event struct {
	Cycle    uint64
	FormatID uint32
	Category uint32 // low 32 bits of the category mask
	UnitID   uint16 // source_id; 0 = no unit
	ArgCount uint8
	Block    int32 // index of the block in Reader.Blocks
	args     []byte
	format   *Format // nil when the schema has no format with this id
}

// RawArgs returns the event's argument bytes as stored.
func (e *Event) RawArgs() []byte { return e.args }

// Format returns the event's format, or nil when the schema does not know
// FormatID (its message is then "[unknown format]").
func (e *Event) Format() *Format { return e.format }

// AppendMessage appends the message exactly as the original trace_reader
// printed it.
func (e *Event) AppendMessage(dst []byte) []byte {
	return ctext.AppendMessage(dst, e.format.program(), e.ArgCount, e.args)
}

// Message returns the rebuilt message text.
func (e *Event) Message() string { return string(e.AppendMessage(nil)) }

// Clone returns a copy of e whose arguments no longer alias the file or a
// pooled buffer.
func (e Event) Clone() Event {
	e.args = bytes.Clone(e.args)
	return e
}

// parsed returns the argument bytes the original reader keeps (see
// ctext.ParsedLen).
func (e *Event) parsed() []byte {
	if e.format == nil {
		return nil
	}
	return e.args[:ctext.ParsedLen(e.format.ArgTypes, int(e.ArgCount), e.args)]
}

// NumArgs returns how many typed arguments the event carries: those that the
// format's types describe and that are wholly present.
func (e *Event) NumArgs() int {
	n := 0
	for range e.Args() {
		n++
	}
	return n
}

// Args iterates over the event's typed arguments in order.
func (e *Event) Args() iter.Seq2[int, Arg] {
	return func(yield func(int, Arg) bool) {
		if e.format == nil {
			return
		}
		p, types := e.parsed(), e.format.ArgTypes
		for i := 0; i < len(types) && len(p) > 0; i++ {
			n := argSize(types[i], p)
			if n <= 0 || n > len(p) {
				return
			}
			a := Arg{Type: types[i], Raw: p[:n:n], Role: e.format.Role(i)}
			if a.Role == schema.RoleSymbol {
				a.symbols = e.format.symbols
			}
			if !yield(i, a) {
				return
			}
			p = p[n:]
		}
	}
}

// Arg returns argument i, or false when the event has no such argument.
func (e *Event) Arg(i int) (Arg, bool) {
	for j, a := range e.Args() {
		if j == i {
			return a, true
		}
	}
	return Arg{}, false
}

// ArgByName returns the argument the format names name (see Format.ArgName).
func (e *Event) ArgByName(name string) (Arg, bool) {
	if e.format == nil {
		return Arg{}, false
	}
	for i, a := range e.Args() {
		if e.format.ArgName(i) == name {
			return a, true
		}
	}
	return Arg{}, false
}

func argSize(t schema.ArgType, b []byte) int {
	if t == schema.ArgString {
		if nul := bytes.IndexByte(b, 0); nul >= 0 {
			return nul + 1
		}
		return -1
	}
	return t.Size()
}

// Arg is one typed argument. Raw holds its encoded bytes (a string's include
// the terminating NUL). Role is what the writer said it means: a UInt32
// with RoleSymbol is an interned string, whose id Uint returns and whose
// string String prints.
type Arg struct {
	Type    schema.ArgType
	Raw     []byte
	Role    schema.ArgRole
	symbols []string // the file's symbol table, for a Symbol argument
}

// isSymbol reports whether a prints as a symbol's string: a UInt32 with the
// Symbol role, as the dump decides.
func (a Arg) isSymbol() bool {
	return a.Role == schema.RoleSymbol && a.Type == schema.ArgUInt32 && len(a.Raw) >= 4
}

// Int returns a signed integer argument sign-extended (other integer types
// are converted, floats truncated, bools 0 or 1).
func (a Arg) Int() int64 {
	le := binary.LittleEndian
	switch a.Type {
	case schema.ArgInt8:
		return int64(int8(a.Raw[0]))
	case schema.ArgInt16:
		return int64(int16(le.Uint16(a.Raw)))
	case schema.ArgInt32:
		return int64(int32(le.Uint32(a.Raw)))
	case schema.ArgFloat, schema.ArgDouble:
		return int64(a.Float())
	}
	return int64(a.Uint())
}

// Uint returns an unsigned integer, pointer or bool argument (signed types
// are converted as Go converts them).
func (a Arg) Uint() uint64 {
	le := binary.LittleEndian
	switch a.Type {
	case schema.ArgUInt8, schema.ArgBool:
		return uint64(a.Raw[0])
	case schema.ArgUInt16:
		return uint64(le.Uint16(a.Raw))
	case schema.ArgUInt32:
		return uint64(le.Uint32(a.Raw))
	case schema.ArgUInt64, schema.ArgPointer, schema.ArgInt64:
		return le.Uint64(a.Raw)
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32:
		return uint64(a.Int())
	case schema.ArgFloat, schema.ArgDouble:
		return uint64(a.Float())
	}
	return 0
}

// Float returns a Float or Double argument (integers are converted).
func (a Arg) Float() float64 {
	le := binary.LittleEndian
	switch a.Type {
	case schema.ArgFloat:
		return float64(math.Float32frombits(le.Uint32(a.Raw)))
	case schema.ArgDouble:
		return math.Float64frombits(le.Uint64(a.Raw))
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32, schema.ArgInt64:
		return float64(a.Int())
	case schema.ArgString:
		return 0
	}
	return float64(a.Uint())
}

// Bool reports whether the argument is non-zero.
func (a Arg) Bool() bool {
	for _, c := range a.Raw {
		if c != 0 {
			return a.Type != schema.ArgString || len(a.Raw) > 1
		}
	}
	return false
}

// Bytes returns a String argument's bytes without the NUL (aliasing Raw), or
// Raw for other types.
func (a Arg) Bytes() []byte {
	if a.Type == schema.ArgString && len(a.Raw) > 0 && a.Raw[len(a.Raw)-1] == 0 {
		return a.Raw[:len(a.Raw)-1]
	}
	return a.Raw
}

// AppendText appends the argument as the dump prints it: as the original
// reader printed it (hex selects the "{:x}" form of integers), except a
// Symbol argument, which prints its string ("[symbol N]" for an id the
// file's table lacks, "[symbol table full]" for schema.SymbolOverflow)
// whatever hex says.
func (a Arg) AppendText(dst []byte, hex bool) []byte {
	if a.isSymbol() {
		return ctext.AppendSymbol(dst, a.symbols, binary.LittleEndian.Uint32(a.Raw))
	}
	dst, _ = ctext.AppendArg(dst, a.Type, a.Raw, hex)
	return dst
}

// String returns the argument as the dump prints it for "{}" (see
// AppendText).
func (a Arg) String() string { return string(a.AppendText(nil, false)) }
