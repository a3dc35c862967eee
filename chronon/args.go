package chronon

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/chronon-sim/chronon-go/schema"
)

// Arg is the set of Go types an event argument may have. Each maps to one of
// the format's argument types:
//
//	int8 int16 int32 int64      -> Int8 Int16 Int32 Int64
//	uint8 uint16 uint32 uint64  -> UInt8 UInt16 UInt32 UInt64
//	int, uint                   -> Int64, UInt64 (Int32, UInt32 on 32-bit platforms)
//	float32, float64            -> Float, Double
//	uintptr                     -> Pointer (printed 0x...)
//	bool                        -> Bool
//	string                      -> String (stored NUL-terminated; cut at an embedded NUL)
//	Symbol                      -> UInt32 with the Symbol role (Tracer.Intern)
//
// Named types with these underlying types are accepted too.
type Arg interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64 | ~bool | ~string
}

// argTypeOf maps a Go type to its .ctrace argument type. It runs at
// registration only.
func argTypeOf[T Arg]() schema.ArgType {
	t := reflect.TypeFor[T]()
	if t == reflect.TypeFor[Symbol]() {
		return argSymbol
	}
	switch t.Kind() {
	case reflect.Int8:
		return schema.ArgInt8
	case reflect.Int16:
		return schema.ArgInt16
	case reflect.Int32:
		return schema.ArgInt32
	case reflect.Int64:
		return schema.ArgInt64
	case reflect.Int:
		if t.Size() == 8 {
			return schema.ArgInt64
		}
		return schema.ArgInt32
	case reflect.Uint8:
		return schema.ArgUInt8
	case reflect.Uint16:
		return schema.ArgUInt16
	case reflect.Uint32:
		return schema.ArgUInt32
	case reflect.Uint64:
		return schema.ArgUInt64
	case reflect.Uint:
		if t.Size() == 8 {
			return schema.ArgUInt64
		}
		return schema.ArgUInt32
	case reflect.Uintptr:
		if t.Size() == 8 {
			return schema.ArgPointer
		}
		return schema.ArgUInt32
	case reflect.Float32:
		return schema.ArgFloat
	case reflect.Float64:
		return schema.ArgDouble
	case reflect.Bool:
		return schema.ArgBool
	case reflect.String:
		return schema.ArgString
	}
	panic(fmt.Sprintf("chronon: unreachable: type %v satisfies Arg", t))
}

// argSymbol marks a Symbol argument in the type list argTypeOf builds;
// register records it as a UInt32 with the Symbol role.
const argSymbol = 0x80 | schema.ArgUInt32

// stringOf reinterprets an argument known (from its registered type) to be a
// string. It is only called when the format's type list says so.
func stringOf[T Arg](v *T) string { return *(*string)(unsafe.Pointer(v)) }

// strArg returns the argument as a string when its registered type is
// String, and "" otherwise (the value is then stored by putArg as a scalar).
func strArg[T Arg](v *T, t schema.ArgType) string {
	if t == schema.ArgString {
		return stringOf(v)
	}
	return ""
}

// putArg stores one argument at p and returns the position after it. A
// string stores its first n bytes and a NUL; n comes from layoutStrings.
func putArg[T Arg](p unsafe.Pointer, v T, t schema.ArgType, s string, n int) unsafe.Pointer {
	if t != schema.ArgString {
		*(*T)(p) = v
		return unsafe.Add(p, unsafe.Sizeof(v))
	}
	dst := unsafe.Slice((*byte)(p), n+1)
	copy(dst, s[:n])
	dst[n] = 0
	return unsafe.Add(p, n+1)
}

// layoutStrings decides how many bytes of each string argument are stored
// and returns the event's args size. A string is cut at its first NUL (a
// reader stops there, and the bytes after it would be misread as the next
// argument) and, when the event would not fit maxArgs, truncated, keeping one
// byte per later string for its terminator. fixed is the size of the
// non-string arguments; strs[i] is "" for them and lens[i] is ignored.
func layoutStrings(types []schema.ArgType, strs []string, lens []int, fixed, maxArgs int) int {
	nstr := 0
	for _, t := range types {
		if t == schema.ArgString {
			nstr++
		}
	}
	budget := maxArgs - fixed
	for i, t := range types {
		if t != schema.ArgString {
			continue
		}
		nstr--
		n := clipString(strs[i], budget-nstr-1)
		lens[i] = n
		budget -= n + 1
	}
	return maxArgs - budget
}

// clipString returns how many bytes of s are stored: up to the first NUL and
// at most max.
func clipString(s string, max int) int {
	n := len(s)
	for i := 0; i < n; i++ {
		if s[i] == 0 {
			n = i
			break
		}
	}
	if n > max {
		n = max
	}
	if n < 0 {
		n = 0
	}
	return n
}
