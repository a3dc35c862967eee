package export

import (
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// fmtInfo is what the exporter needs to know about a format, computed once.
type fmtInfo struct {
	id     uint32
	kind   schema.EventKind
	name   string // event (slice, instant, counter) name
	types  []schema.ArgType
	names  []string // argument names
	lane   int      // index of the lane argument, or -1
	flow   int      // ... flow id
	dur    int      // ... duration (complete spans)
	value  int      // ... counter value
	spanID int      // ... span id (async spans; an instant's span)
	parent int      // ... parent span id
	plain  []int    // arguments exported as debug annotations
	hexes  []bool   // argument i has a {:x} placeholder
	syms   []bool   // argument i is a symbol: exported as its string
	anySym bool     // some argument is
	table  []string // the trace's symbols (syms' strings)

	// Interning state of the perfetto sink, kept here so that the hot path
	// does no string lookups: ids, and the file each was last emitted in.
	nameIID uint64
	nameGen uint32
	annIIDs []uint64 // parallel to names
	annGens []uint32
}

func newFmtInfo(f *mmapio.Format, symbols []string) *fmtInfo {
	fi := &fmtInfo{id: f.ID, kind: f.Kind, types: f.ArgTypes, lane: -1, flow: -1, dur: -1, value: -1, spanID: -1, parent: -1, table: symbols}
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
	fi.syms = make([]bool, len(fi.types))
	for i, t := range fi.types {
		integer := t >= schema.ArgInt8 && t <= schema.ArgUInt64
		switch r := f.Role(i); {
		case r == schema.RoleLane:
			fi.lane = i
		case r == schema.RoleFlow:
			fi.flow = i
		case r == schema.RoleDuration:
			fi.dur = i
		case r == schema.RoleValue:
			fi.value = i
		default:
			// Ids and parents are shown too: they name the span.
			if r == schema.RoleID && integer && fi.spanID < 0 {
				fi.spanID = i
			}
			if r == schema.RoleParent && integer && fi.parent < 0 {
				fi.parent = i
			}
			fi.syms[i] = r == schema.RoleSymbol && t == schema.ArgUInt32
			fi.anySym = fi.anySym || fi.syms[i]
			fi.plain = append(fi.plain, i)
		}
	}
	// A span or counter without the argument its kind needs is exported as
	// an instant rather than guessed at; so are flushes and retirements
	// (instants on their flow) and kinds newer than this reader.
	switch {
	case fi.kind == schema.KindSpanComplete && fi.dur < 0,
		fi.kind == schema.KindCounter && fi.value < 0,
		(fi.kind == schema.KindAsyncBegin || fi.kind == schema.KindAsyncEnd) && fi.spanID < 0,
		fi.kind == schema.KindFlush || fi.kind == schema.KindRetire || fi.kind > schema.KindLast:
		fi.kind = schema.KindInstant
	}
	return fi
}

// isAsync reports whether the format begins or ends async spans.
func (f *fmtInfo) isAsync() bool {
	return f.kind == schema.KindAsyncBegin || f.kind == schema.KindAsyncEnd
}

// symbol returns the string argument i names (a symbol the table lacks
// prints as "[symbol N]", the overflow as "[symbol table full]").
func (f *fmtInfo) symbol(v *argview.View, i int) string {
	id := uint32(v.Uint(i))
	if int64(id) < int64(len(f.table)) {
		return f.table[id]
	}
	if id == schema.SymbolOverflow {
		return schema.SymbolOverflowText
	}
	return "[symbol " + strconv.FormatUint(uint64(id), 10) + "]"
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

func (f *fmtInfo) hex(i int) bool { return i < len(f.hexes) && f.hexes[i] }

func isFloat(t schema.ArgType) bool { return t == schema.ArgFloat || t == schema.ArgDouble }

func isSigned(t schema.ArgType) bool { return t >= schema.ArgInt8 && t <= schema.ArgInt64 }
