package ctext

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/chronon-sim/chronon-go/schema"
)

// Format is a format string compiled for printing: its placeholders and,
// when every placeholder takes a fixed-size argument, the literal text
// around them ready to copy.
type Format struct {
	text         string
	types        []schema.ArgType
	placeholders []schema.Placeholder

	// Fast path, when every placeholder takes a fixed-size argument: an
	// event with at least len(ops) arguments and fixedSize bytes fills all
	// of them, so its message is ops then tail, no walk needed.
	fast      bool
	ops       []fmtOp
	tail      string
	fixedSize int
	lineFast  bool // every argument prints without floats: the fast line (line.go)
	maxLine   int  // longest fast line, without the unit prefix

	// escLits: the format string holds control characters, which its
	// literal text prints escaped (escape.go). ops and tail are escaped
	// already; the general path escapes as it goes.
	escLits bool

	symbols []string // the schema's symbol table: arguments with the Symbol role print their string
	symArgs bool     // some argument has the Symbol role
	symRole []bool   // by argument: it has the Symbol role (when symArgs)
}

// fmtOp is the literal text before one placeholder and how to print its argument.
type fmtOp struct {
	lit string
	typ schema.ArgType
	hex bool
	off int // the argument's offset in the args
}

// Compile compiles format string text whose arguments have types.
func Compile(text string, types []schema.ArgType) *Format {
	f := &Format{text: text, types: types, placeholders: schema.Placeholders(text), escLits: NeedsEscape(text)}
	f.compile()
	return f
}

// CompileFormat compiles a schema's format: arguments with the Symbol role
// print as their string in symbols, the schema's symbol table.
func CompileFormat(sf *schema.Format, symbols []string) *Format {
	f := &Format{text: sf.Format, types: sf.ArgTypes, placeholders: schema.Placeholders(sf.Format), escLits: NeedsEscape(sf.Format)}
	if sf.RoleIndex(schema.RoleSymbol) >= 0 {
		f.symArgs, f.symbols = true, symbols
		f.symRole = make([]bool, len(sf.ArgTypes))
		for i := range f.symRole {
			f.symRole[i] = sf.Role(i) == schema.RoleSymbol
		}
	}
	f.compile()
	return f
}

func (f *Format) compile() {
	if len(f.placeholders) > len(f.types) {
		return
	}
	prev, off := 0, 0
	for i, ph := range f.placeholders {
		t := f.types[i]
		if t == schema.ArgString || t.Size() == 0 || f.symArgs {
			return // the general path prints them
		}
		f.ops = append(f.ops, fmtOp{lit: f.litText(f.text[prev:ph.Start]), typ: t, hex: ph.Hex, off: off})
		off += t.Size()
		prev = ph.End
	}
	f.tail = f.litText(f.text[prev:])
	f.fixedSize = off
	f.fast = true
	f.lineFast = true
	f.maxLine = 2 + 20 + len(f.tail) + 1 // "[" cycle "]" ... "\n"
	for _, op := range f.ops {
		w := maxArgWidth(op.typ)
		if w == 0 {
			f.lineFast = false
		}
		f.maxLine += len(op.lit) + w
	}
}

// litText is literal text of the format as it prints (escaped).
func (f *Format) litText(s string) string {
	if f.escLits {
		return Escape(s)
	}
	return s
}

// appendLit appends literal text of the format as it prints (escaped).
func (f *Format) appendLit(dst []byte, s string) []byte {
	if f.escLits {
		return AppendEscaped(dst, s)
	}
	return append(dst, s...)
}

// ParsedLen returns how many bytes of args the original reader keeps for an
// event (its "parsed args" buffer, always a prefix of args): it walks the
// format's types for at most argc arguments while bytes remain. Past the end
// of the type list it keeps everything; an unknown type, a fixed-size
// argument that does not fit, or a string without its NUL stops the walk.
func ParsedLen(types []schema.ArgType, argc int, args []byte) int {
	off := 0
	for i := 0; i < argc && off < len(args); i++ {
		if i >= len(types) {
			return len(args)
		}
		t := types[i]
		if t == schema.ArgString {
			nul := bytes.IndexByte(args[off:], 0)
			if nul < 0 {
				return off // size would be remaining+1: past the end
			}
			off += nul + 1
			continue
		}
		size := t.Size()
		if size == 0 || size > len(args)-off {
			return off
		}
		off += size
	}
	return off
}

// AppendMessage rebuilds an event's text as the original reader did. f is
// nil for a format id the schema does not know.
//
// The original walks the format string: a '{' that is not the last byte and
// has a '}' after it prints the next argument while parsed bytes and types
// remain; otherwise the '{' is printed literally. Because neither the bytes
// nor the types come back once exhausted, everything after the first
// placeholder that cannot be filled is literal text, so walking the
// precomputed placeholders gives the same bytes.
func AppendMessage(dst []byte, f *Format, argc uint8, args []byte) []byte {
	if f == nil {
		return append(dst, "[unknown format]"...)
	}
	if f.fast && int(argc) >= len(f.ops) && len(args) >= f.fixedSize {
		for i := range f.ops {
			op := &f.ops[i]
			dst = append(dst, op.lit...)
			dst = appendFixedArg(dst, op.typ, args[op.off:], op.hex)
		}
		return append(dst, f.tail...)
	}
	types := f.types
	p := args[:ParsedLen(types, int(argc), args)]
	text := f.text
	prev, ap := 0, 0
	for ai, ph := range f.placeholders {
		if ap >= len(p) || ai >= len(types) {
			break
		}
		dst = f.appendLit(dst, text[prev:ph.Start])
		var n int
		if f.symArgs && types[ai] == schema.ArgUInt32 && f.symRole[ai] && len(p)-ap >= 4 {
			// A symbol prints its string (the original reader prints the id).
			dst, n = AppendSymbol(dst, f.symbols, binary.LittleEndian.Uint32(p[ap:])), 4
		} else {
			dst, n = AppendArg(dst, types[ai], p[ap:], ph.Hex)
		}
		ap += n
		prev = ph.End
	}
	return f.appendLit(dst, text[prev:])
}

// AppendArg prints the argument of type t at the start of b as C's printf
// did in the original reader and returns how many bytes it consumed.
func AppendArg(dst []byte, t schema.ArgType, b []byte, hex bool) ([]byte, int) {
	if t == schema.ArgString {
		// The string is the file's: control characters print escaped.
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return AppendEscaped(dst, b), len(b)
		}
		return AppendEscaped(dst, b[:nul]), nul + 1
	}
	size := t.Size()
	if size == 0 || size > len(b) {
		return append(dst, '?'), 0
	}
	le := binary.LittleEndian
	switch t {
	case schema.ArgInt8:
		return appendSigned32(dst, int32(int8(b[0])), hex), 1
	case schema.ArgInt16:
		return appendSigned32(dst, int32(int16(le.Uint16(b))), hex), 2
	case schema.ArgInt32:
		return appendSigned32(dst, int32(le.Uint32(b)), hex), 4
	case schema.ArgInt64:
		v := le.Uint64(b)
		if hex {
			return appendHex(dst, v), 8 // %lx: 64-bit two's complement
		}
		return appendInt(dst, int64(v)), 8
	case schema.ArgUInt8:
		return appendUnsigned(dst, uint64(b[0]), hex), 1
	case schema.ArgUInt16:
		return appendUnsigned(dst, uint64(le.Uint16(b)), hex), 2
	case schema.ArgUInt32:
		return appendUnsigned(dst, uint64(le.Uint32(b)), hex), 4
	case schema.ArgUInt64:
		return appendUnsigned(dst, le.Uint64(b), hex), 8
	case schema.ArgFloat:
		return AppendCFloat(dst, float64(math.Float32frombits(le.Uint32(b)))), 4
	case schema.ArgDouble:
		return AppendCFloat(dst, math.Float64frombits(le.Uint64(b))), 8
	case schema.ArgPointer:
		return appendHex(append(dst, '0', 'x'), le.Uint64(b)), 8
	case schema.ArgBool:
		if b[0] != 0 {
			return append(dst, "true"...), 1
		}
		return append(dst, "false"...), 1
	}
	return append(dst, '?'), 0
}

// appendFixedArg is AppendArg for a fixed-size type known to fit in b.
func appendFixedArg(dst []byte, t schema.ArgType, b []byte, hex bool) []byte {
	le := binary.LittleEndian
	switch t {
	case schema.ArgUInt64:
		if hex {
			return appendHex(dst, le.Uint64(b))
		}
		return appendUint(dst, le.Uint64(b))
	case schema.ArgUInt32:
		if hex {
			return appendHex(dst, uint64(le.Uint32(b)))
		}
		return appendUint(dst, uint64(le.Uint32(b)))
	case schema.ArgBool:
		if b[0] != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case schema.ArgUInt8:
		if hex {
			return appendHex(dst, uint64(b[0]))
		}
		return appendUint(dst, uint64(b[0]))
	case schema.ArgInt16:
		return appendSigned32(dst, int32(int16(le.Uint16(b))), hex)
	case schema.ArgInt32:
		return appendSigned32(dst, int32(le.Uint32(b)), hex)
	}
	dst, _ = AppendArg(dst, t, b, hex)
	return dst
}

// appendSigned32 prints a value C promoted to int: "%d", or "%x" of its
// 32-bit two's complement.
func appendSigned32(dst []byte, v int32, hex bool) []byte {
	if hex {
		return appendHex(dst, uint64(uint32(v)))
	}
	return appendInt(dst, int64(v))
}

func appendUnsigned(dst []byte, v uint64, hex bool) []byte {
	if hex {
		return appendHex(dst, v)
	}
	return appendUint(dst, v)
}

// AppendSymbol appends symbol id as every reader prints it: its string in
// symbols (control characters escaped, as any string of the file), or what
// schema.Schema's SymbolText prints for an id the table lacks.
func AppendSymbol(dst []byte, symbols []string, id uint32) []byte {
	if int64(id) < int64(len(symbols)) {
		return AppendEscaped(dst, symbols[id])
	}
	return append(dst, (&schema.Schema{}).SymbolText(id)...)
}
