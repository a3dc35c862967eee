package export

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// fmtInfo is what the exporter needs to know about a format, computed once.
type fmtInfo struct {
	id    uint32
	kind  schema.EventKind
	name  string // event (slice, instant, counter) name
	types []schema.ArgType
	names []string // argument names
	lane  int      // index of the lane argument, or -1
	flow  int      // ... flow id
	dur   int      // ... duration (complete spans)
	value int      // ... counter value
	plain []int    // arguments exported as debug annotations
	hexes []bool   // argument i has a {:x} placeholder

	nameIID uint64   // interned event name (perfetto sink)
	annIIDs []uint64 // interned annotation names, parallel to names
}

func newFmtInfo(f *mmapio.Format) *fmtInfo {
	fi := &fmtInfo{id: f.ID, kind: f.Kind, types: f.ArgTypes, lane: -1, flow: -1, dur: -1, value: -1}
	fi.names = make([]string, len(fi.types))
	for i := range fi.names {
		fi.names[i] = f.ArgName(i)
	}
	ph := schema.Placeholders(f.Format.Format)
	fi.hexes = make([]bool, len(fi.types))
	for i := range fi.hexes {
		fi.hexes[i] = i < len(ph) && ph[i].Hex
	}
	fi.name = f.Name
	if fi.name == "" {
		fi.name = eventName(f.Format.Format, fi.names)
	}
	for i := range fi.types {
		switch f.Role(i) {
		case schema.RoleLane:
			fi.lane = i
		case schema.RoleFlow:
			fi.flow = i
		case schema.RoleDuration:
			fi.dur = i
		case schema.RoleValue:
			fi.value = i
		default:
			fi.plain = append(fi.plain, i)
		}
	}
	// A span or counter without the argument its kind needs is exported as
	// an instant rather than guessed at.
	if (fi.kind == schema.KindSpanComplete && fi.dur < 0) || (fi.kind == schema.KindCounter && fi.value < 0) || fi.kind > schema.KindCounter {
		fi.kind = schema.KindInstant
	}
	return fi
}

// eventName names an event after its format text before the first
// placeholder, without the first argument's name, which labels the value:
// "fetch pc=0x{:x} taken={}" -> "fetch", "retired seq={}" -> "retired".
// When nothing else is left ("cache {} ..."), the text itself is the name.
func eventName(text string, argNames []string) string {
	end := len(text)
	if ph := schema.Placeholders(text); len(ph) > 0 {
		end = ph[0].Start
	}
	full := strings.TrimRight(text[:end], " =:#")
	s := full
	if len(s) >= 2 && (s[len(s)-2:] == "0x" || s[len(s)-2:] == "0X") {
		s = strings.TrimRight(s[:len(s)-2], " =:#")
	}
	if len(argNames) > 0 && strings.HasSuffix(s, argNames[0]) {
		s = strings.TrimRight(s[:len(s)-len(argNames[0])], " =:#")
	}
	switch {
	case s != "":
		return s
	case full != "":
		return full
	}
	return text
}

// argView locates the arguments of one event in its raw bytes. Only the
// first arg_count arguments that are wholly present exist, as the original
// reader decides.
type argView struct {
	raw   []byte
	types []schema.ArgType
	off   [256]uint32
	n     int
}

func (v *argView) reset(types []schema.ArgType, raw []byte, argCount int) {
	v.raw, v.types, v.n = raw, types, 0
	p := 0
	for i := 0; i < len(types) && i < argCount && p < len(raw); i++ {
		size := types[i].Size()
		if types[i] == schema.ArgString {
			size = 0
			for p+size < len(raw) && raw[p+size] != 0 {
				size++
			}
			if p+size >= len(raw) {
				return // no NUL: the argument is not there
			}
			size++
		}
		if size == 0 || p+size > len(raw) {
			return
		}
		v.off[i] = uint32(p)
		v.n = i + 1
		p += size
	}
}

func (v *argView) has(i int) bool { return i >= 0 && i < v.n }

func (v *argView) bytes(i int) []byte { return v.raw[v.off[i]:] }

// uint returns an integer argument as uint64 (signed ones sign-extended).
func (v *argView) uint(i int) uint64 {
	b, le := v.bytes(i), binary.LittleEndian
	switch v.types[i] {
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

// float returns a floating point argument.
func (v *argView) float(i int) float64 {
	b, le := v.bytes(i), binary.LittleEndian
	switch v.types[i] {
	case schema.ArgFloat:
		return float64(math.Float32frombits(le.Uint32(b)))
	case schema.ArgDouble:
		return math.Float64frombits(le.Uint64(b))
	}
	return float64(int64(v.uint(i)))
}

// str returns a String argument without its NUL.
func (v *argView) str(i int) []byte {
	b := v.bytes(i)
	for j, c := range b {
		if c == 0 {
			return b[:j]
		}
	}
	return b
}

func (f *fmtInfo) hex(i int) bool { return i < len(f.hexes) && f.hexes[i] }

// hexValue is the value a {:x} placeholder prints: a negative Int8..Int32
// as its 32-bit two's complement, as C's %x of the promoted int does.
func (v *argView) hexValue(i int) uint64 {
	u := v.uint(i)
	switch v.types[i] {
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32:
		return u & 0xFFFFFFFF
	}
	return u
}

func isFloat(t schema.ArgType) bool { return t == schema.ArgFloat || t == schema.ArgDouble }

func isSigned(t schema.ArgType) bool { return t >= schema.ArgInt8 && t <= schema.ArgInt64 }

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	return string(b[p:])
}
