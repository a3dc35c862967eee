package export

import (
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

	// Interning state of the perfetto sink, kept here so that the hot path
	// does no string lookups: ids, and the file each was last emitted in.
	nameIID uint64
	nameGen uint32
	annIIDs []uint64 // parallel to names
	annGens []uint32
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

func (f *fmtInfo) hex(i int) bool { return i < len(f.hexes) && f.hexes[i] }

func isFloat(t schema.ArgType) bool { return t == schema.ArgFloat || t == schema.ArgDouble }

func isSigned(t schema.ArgType) bool { return t >= schema.ArgInt8 && t <= schema.ArgInt64 }
