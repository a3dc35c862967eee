package ctext

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

type A = ctracetest.Args

func msg(format string, types []schema.ArgType, argc uint8, args []byte) string {
	return string(AppendMessage(nil, Compile(format, types), argc, args))
}

const (
	i8, i16, i32, i64 = schema.ArgInt8, schema.ArgInt16, schema.ArgInt32, schema.ArgInt64
	u8, u16, u32, u64 = schema.ArgUInt8, schema.ArgUInt16, schema.ArgUInt32, schema.ArgUInt64
	f32, f64, ptr     = schema.ArgFloat, schema.ArgDouble, schema.ArgPointer
	str, bol, none    = schema.ArgString, schema.ArgBool, schema.ArgNone
)

type T = []schema.ArgType

// The original reader's message rules, case by case (see AppendMessage).
func TestMessageRules(t *testing.T) {
	cases := []struct {
		name   string
		format string
		types  T
		argc   uint8
		args   []byte
		want   string
	}{
		{"plain", "a={} b={}", T{i32, i32}, 2, A{}.I32(-5).I32(7), "a=-5 b=7"},
		{"argc stops the parse", "a={} b={}", T{i32, i32}, 1, A{}.I32(1).I32(2), "a=1 b={}"},
		{"argc zero", "a={} b={}", T{i32, i32}, 0, A{}.I32(1).I32(2), "a={} b={}"},
		{"arg does not fit", "a={} b={}", T{i32, i32}, 2, A{}.I32(1).U16(2), "a=1 b={}"},
		{"more placeholders than types", "x={} y={}", T{u8}, 2, A{}.U8(3).U8(4), "x=3 y={}"},
		{"extra args ignored", "x={}", T{u8, u8}, 2, A{}.U8(3).U8(4), "x=3"},
		{"string", "s={} n={}", T{str, u8}, 2, A{}.Str("abc").U8(7), "s=abc n=7"},
		{"empty string", "s={} n={}", T{str, u8}, 2, A{}.Str("").U8(7), "s= n=7"},
		{"string without NUL", "s={} n={}", T{str, u8}, 2, []byte("abc"), "s={} n={}"},
		{"string bytes raw", "s={}", T{str}, 1, A{}.Str("\xff\xfe ok"), "s=\xff\xfe ok"},
		{"unknown type stops", "a={} b={} c={}", T{u8, none, u8}, 3, A{}.U8(1).U8(2).U8(3), "a=1 b={} c={}"},
		{"type out of range stops", "a={} b={}", T{u8, 99}, 2, A{}.U8(1).U8(2), "a=1 b={}"},
		{"hex int8", "{:x}", T{i8}, 1, A{}.I8(-1), "ffffffff"},
		{"hex int16", "{:x}", T{i16}, 1, A{}.I16(-2), "fffffffe"},
		{"hex int32", "{:X}", T{i32}, 1, A{}.I32(-1), "ffffffff"},
		{"hex int64", "{x}", T{i64}, 1, A{}.I64(-1), "ffffffffffffffff"},
		{"hex unsigned", "{:x} {:x} {:x} {:x}", T{u8, u16, u32, u64}, 4, A{}.U8(255).U16(0xabc).U32(0xdeadbeef).U64(1 << 40), "ff abc deadbeef 10000000000"},
		{"decimal extremes", "{} {} {} {}", T{i8, i16, i32, i64}, 4, A{}.I8(-128).I16(-32768).I32(math.MinInt32).I64(math.MinInt64), "-128 -32768 -2147483648 -9223372036854775808"},
		{"unsigned extremes", "{} {} {} {}", T{u8, u16, u32, u64}, 4, A{}.U8(255).U16(65535).U32(math.MaxUint32).U64(math.MaxUint64), "255 65535 4294967295 18446744073709551615"},
		{"pointer", "p={} q={:x}", T{ptr, ptr}, 2, A{}.Ptr(0).Ptr(0x7f0000b5fb30), "p=0x0 q=0x7f0000b5fb30"},
		{"floats", "{} {} {:x}", T{f32, f64, f64}, 3, A{}.F32(1.5).F64(1e21).F64(2.25e-5), "1.5 1e+21 2.25e-05"},
		{"float specials", "{} {} {}", T{f64, f64, f32}, 3, A{}.F64(math.Inf(-1)).F64(math.Copysign(math.NaN(), -1)).F32(float32(math.NaN())), "-inf -nan nan"},
		{"bool", "{} {} {}", T{bol, bol, bol}, 3, A{}.U8(0).U8(1).U8(2), "false true true"},
		{"brace at end", "x={", T{u8}, 1, A{}.U8(1), "x={"},
		{"unclosed brace", "x={ and more", T{u8}, 1, A{}.U8(1), "x={ and more"},
		{"nested open", "{{x}", T{u8}, 1, A{}.U8(10), "a"},
		{"spec ignored", "{0:>8}|", T{u8}, 1, A{}.U8(10), "10|"},
		{"lone close", "a} {}", T{u8}, 1, A{}.U8(1), "a} 1"},
		{"no placeholders", "tick", nil, 0, nil, "tick"},
		{"literal after failed placeholder", "{} {} {}", T{u8, u8, u8}, 1, A{}.U8(1).U8(2).U8(3), "1 {} {}"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, msg(c.format, c.types, c.argc, c.args), c.name)
	}
	require.Equal(t, "[unknown format]", string(AppendMessage(nil, nil, 2, []byte{1, 2})))
}

// refMessage is the original reader's algorithm transcribed literally: parse
// the args into a buffer, then walk the format string a byte at a time.
func refMessage(f *schema.Format, argc uint8, args []byte) string {
	if f == nil {
		return "[unknown format]"
	}
	var parsed []byte
	off := 0
	for i := 0; i < int(argc) && off < len(args); i++ {
		if i >= len(f.ArgTypes) {
			parsed = append(parsed, args[off:]...)
			break
		}
		t := f.ArgTypes[i]
		var size int
		if t == schema.ArgString {
			nul := bytes.IndexByte(args[off:], 0)
			if nul < 0 {
				size = len(args) - off + 1
			} else {
				size = nul + 1
			}
		} else {
			size = t.Size()
		}
		if size == 0 || off+size > len(args) {
			break
		}
		parsed = append(parsed, args[off:off+size]...)
		off += size
	}
	// Literal text prints with its control characters escaped (Escape,
	// the one addition to the original's rules): a run of it at a time.
	var out, lit []byte
	flush := func() {
		out = append(out, Escape(string(lit))...)
		lit = lit[:0]
	}
	s := f.Format
	ap, ai := 0, 0
	for i := 0; i < len(s); {
		if s[i] == '{' && i+1 < len(s) {
			j := bytes.IndexByte([]byte(s[i+1:]), '}')
			if j >= 0 && ap < len(parsed) && ai < len(f.ArgTypes) {
				j += i + 1
				spec := s[i+1 : j]
				hex := bytes.ContainsAny([]byte(spec), "xX")
				var n int
				flush()
				out, n = AppendArg(out, f.ArgTypes[ai], parsed[ap:], hex)
				ap += n
				ai++
				i = j + 1
				continue
			}
		}
		lit = append(lit, s[i])
		i++
	}
	flush()
	return string(out)
}

func FuzzMessage(f *testing.F) {
	f.Add("fetch pc=0x{:x} taken={}", []byte{8, 13}, uint8(2), []byte(A{}.U64(0x400000).U8(1)))
	f.Add("decode uop={} srcs={} dst={}", []byte{7, 5, 2}, uint8(3), []byte(A{}.U32(5).U8(6).I16(-7)))
	f.Add("cache {} addr=0x{:x} lat={}", []byte{12, 8, 3}, uint8(3), []byte(A{}.Str("iq_full").U64(9).I32(-1)))
	f.Add("{{x}{}}{", []byte{1, 0, 12, 99}, uint8(4), []byte{1, 2, 3, 0, 4})
	f.Add("temp={} d={}", []byte{9, 10}, uint8(2), []byte(A{}.F32(1.5).F64(-2)))
	f.Fuzz(func(t *testing.T, format string, types []byte, argc uint8, args []byte) {
		sf := schema.Format{Format: format}
		for _, b := range types {
			sf.ArgTypes = append(sf.ArgTypes, schema.ArgType(b%16))
		}
		pf := Compile(sf.Format, sf.ArgTypes)
		want := refMessage(&sf, argc, args)
		require.Equal(t, want, string(AppendMessage(nil, pf, argc, args)))
		// The dump line's fast path agrees with the general one.
		if pf.lineFast && int(argc) >= len(pf.ops) && len(args) >= pf.fixedSize {
			line := appendFastLine([]byte("x"), 12345, []byte(" u: "), pf, args)
			require.Equal(t, "x[     12345] u: "+want+"\n", string(line))
		}
	})
}

func TestFastLineAgreesWithMessage(t *testing.T) {
	rng := ctracetest.SplitMix64{State: 77}
	fixed := T{i8, i16, i32, i64, u8, u16, u32, u64, ptr, bol}
	for range 20000 {
		n := int(rng.Next() % 4)
		var types T
		format := "e"
		for range n {
			types = append(types, fixed[rng.Next()%uint64(len(fixed))])
			if rng.Next()%2 == 0 {
				format += " v={:x}"
			} else {
				format += " v={}"
			}
		}
		args := make([]byte, 0, 64)
		for range 40 {
			args = append(args, byte(rng.Next()))
		}
		if rng.Next()%3 == 0 { // small and negative numbers are common
			for i := range args {
				args[i] = byte(int8(rng.Next()%5) - 2)
			}
		}
		pf := Compile(format, types)
		require.True(t, pf.lineFast)
		cycle := rng.Next() >> (rng.Next() % 64)
		want := string(AppendCycle(nil, cycle)) + " u: " + string(AppendMessage(nil, pf, uint8(n), args)) + "\n"
		require.Equal(t, want, string(appendFastLine(nil, cycle, []byte(" u: "), pf, args)))
	}
}
