package export

import (
	"fmt"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// kFmt is what the Kanata export needs to know about a format.
type kFmt struct {
	kind  schema.EventKind // as recorded (KindFlush kept), a complete span without a duration an instant
	types []schema.ArgType
	flow  int    // index of the flow argument, or -1: the event belongs to no instruction
	dur   int    // index of the duration argument (complete spans)
	name  string // stage name (escaped); "" when the unit's last path element names it
	lane  uint8  // Kanata lane: 0 stage, 1 stall
}

// stallWord marks a stall: a span whose name, or the name of one of its
// categories, contains it (ASCII case-insensitively) goes to lane 1, which
// Konata overlays on the stages of lane 0.
const stallWord = "stall"

// isStall applies the stall rule to a span format.
func isStall(f *mmapio.Format, cats []schema.Category) bool {
	if containsFold(f.Name, stallWord) || (f.Name == "" && containsFold(f.Format.Format, stallWord)) {
		return true
	}
	for _, c := range cats {
		if f.Category&c.Mask != 0 && containsFold(c.Name, stallWord) {
			return true
		}
	}
	return false
}

func containsFold(s, word string) bool { return strings.Contains(strings.ToLower(s), word) }

// kanataFormats indexes r's formats by id for the Kanata export, and says
// why the trace cannot be exported when it has no flows or no spans.
func kanataFormats(r *mmapio.Reader) ([]*kFmt, error) {
	var fmts []*kFmt
	cats := r.Categories()
	flows, spans := false, false
	for _, f := range r.Formats() {
		if f.ID >= 1<<24 {
			continue // no writer makes such ids (as formatTable)
		}
		for int(f.ID) >= len(fmts) {
			fmts = append(fmts, nil)
		}
		if fmts[f.ID] != nil {
			continue // the first entry with an id wins, as in the original reader
		}
		k := &kFmt{kind: f.Kind, types: f.ArgTypes, flow: -1, dur: -1, name: mmapio.EscapeText(f.Name)}
		for i := range f.ArgTypes {
			switch f.Role(i) {
			case schema.RoleFlow:
				k.flow = i
			case schema.RoleDuration:
				k.dur = i
			}
		}
		if k.kind > schema.KindFlush || (k.kind == schema.KindSpanComplete && k.dur < 0) {
			k.kind = schema.KindInstant
		}
		isSpan := k.kind >= schema.KindSpanBegin && k.kind <= schema.KindSpanComplete
		if isSpan && isStall(f, cats) {
			k.lane = 1
		}
		flows = flows || k.flow >= 0
		spans = spans || isSpan
		fmts[f.ID] = k
	}
	if !flows || !spans {
		var missing string
		switch {
		case !flows && !spans:
			missing = "neither flows nor spans"
		case !flows:
			missing = "no flows"
		default:
			missing = "no spans"
		}
		return nil, fmt.Errorf("%s: cannot export to kanata: the trace has %s (Kanata shows one row per instruction: "+
			"it needs flows, a format argument with the flow role naming the instruction, and spans, its stages)", r.Path(), missing)
	}
	return fmts, nil
}

// unitStage is the stage name of a span format without a name: the last
// element of its unit's dotted path ("core0.decode" -> "decode").
func unitStage(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		name = "stage"
	}
	return mmapio.EscapeText(name)
}
