package capi

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// TestCppSpansCountersFlows runs the C++ example and reads its trace back
// with mmapio: chronon::Span's events are spans (kind and roles in the
// schema, begin/end paired per lane, complete with its duration),
// chronon::Counter's are counters of the right value type and values, and
// the chronon::Flow argument and the spans' flow ids link each miss's
// events across the L1 and the L2.
func TestCppSpansCountersFlows(t *testing.T) {
	tc := setup(t)
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	out := filepath.Join(t.TempDir(), "example.ctrace")
	run(t, nil, tc.bin["example_sim_cpp"], out)
	r, err := mmapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// The schema: what the C++ helpers registered, as Go's chronon.Span,
	// chronon.Counter and chronon.WithFlow register it.
	P, L, F, D, V := schema.RolePlain, schema.RoleLane, schema.RoleFlow, schema.RoleDuration, schema.RoleValue
	wantFormats := []struct {
		text  string
		kind  schema.EventKind
		name  string
		roles []schema.ArgRole
		types []schema.ArgType
	}{
		{"miss begin lane={} flow={}", schema.KindSpanBegin, "miss", []schema.ArgRole{L, F}, []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64}},
		{"miss end lane={} flow={}", schema.KindSpanEnd, "miss", []schema.ArgRole{L, F}, []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64}},
		{"miss lane={} flow={} dur={}", schema.KindSpanComplete, "miss", []schema.ArgRole{L, F, D}, []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64, schema.ArgUInt64}},
		{"fill lane={} flow={} dur={}", schema.KindSpanComplete, "fill", []schema.ArgRole{L, F, D}, []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64, schema.ArgUInt64}},
		{"occupancy={}", schema.KindCounter, "occupancy", []schema.ArgRole{V}, []schema.ArgType{schema.ArgInt64}},
		{"hit_rate={}", schema.KindCounter, "hit_rate", []schema.ArgRole{V}, []schema.ArgType{schema.ArgDouble}},
		{"req addr=0x{:x} flow={}", schema.KindInstant, "", []schema.ArgRole{P, F}, []schema.ArgType{schema.ArgUInt64, schema.ArgUInt64}},
	}
	byText := map[string]*mmapio.Format{}
	for _, f := range r.Formats() {
		byText[f.Format.Format] = f
	}
	for _, w := range wantFormats {
		f := byText[w.text]
		if f == nil {
			t.Errorf("format %q is not in the schema", w.text)
			continue
		}
		if f.Kind != w.kind || fmt.Sprint(f.ArgRoles) != fmt.Sprint(w.roles) || fmt.Sprint(f.ArgTypes) != fmt.Sprint(w.types) ||
			(w.name != "" && f.Name != w.name) {
			t.Errorf("format %q: kind %v roles %v types %v name %q; want %v %v %v %q", w.text, f.Kind, f.ArgRoles, f.ArgTypes, f.Name,
				w.kind, w.roles, w.types, w.name)
		}
	}
	if t.Failed() {
		return
	}

	// The events, by what the schema says they are (not by their text).
	l1, l2 := r.UnitsNamed("l1d"), r.UnitsNamed("l2")
	if len(l1) != 1 || len(l2) != 1 {
		t.Fatalf("units l1d %v, l2 %v", l1, l2)
	}
	type laneKey struct {
		unit uint16
		lane uint64
	}
	open := map[laneKey][]uint64{} // flow ids of the spans open per (unit, lane)
	flowUnits := map[uint64]map[uint16]int{}
	var begins, ends, completes, missCompletes int
	counters := map[string][]string{}
	for ev := range r.Events(mmapio.Query{}) {
		f := ev.Format()
		if f == nil {
			t.Fatalf("event at cycle %d: unknown format %d", ev.Cycle, ev.FormatID)
		}
		var lane, flow, dur uint64
		var value string
		for i, role := range f.ArgRoles {
			a, ok := ev.Arg(i)
			if !ok {
				t.Fatalf("%s at cycle %d: argument %d missing", f.Format.Format, ev.Cycle, i)
			}
			switch role {
			case L:
				lane = a.Uint()
			case F:
				flow = a.Uint()
			case D:
				dur = a.Uint()
			case V: // exact: an integer, or the double's bits as Go prints them
				if a.Type == schema.ArgDouble || a.Type == schema.ArgFloat {
					value = fmt.Sprint(a.Float())
				} else {
					value = fmt.Sprint(a.Int())
				}
			}
		}
		if flow != 0 {
			if flowUnits[flow] == nil {
				flowUnits[flow] = map[uint16]int{}
			}
			flowUnits[flow][ev.UnitID]++
		}
		k := laneKey{ev.UnitID, lane}
		switch f.Kind {
		case schema.KindSpanBegin:
			begins++
			open[k] = append(open[k], flow)
		case schema.KindSpanEnd:
			ends++
			s := open[k]
			if len(s) == 0 || s[len(s)-1] != flow {
				t.Errorf("%s at cycle %d on unit %d lane %d flow %d: open spans there %v", f.Format.Format, ev.Cycle, ev.UnitID, lane, flow, s)
				continue
			}
			if ev.Cycle != flow+3 { // the example ends a miss 3 cycles after it began at cycle == flow
				t.Errorf("miss span of flow %d ends at cycle %d", flow, ev.Cycle)
			}
			open[k] = s[:len(s)-1]
		case schema.KindSpanComplete:
			completes++
			if f.Name == "miss" {
				missCompletes++
			}
			if ev.UnitID != l2[0] || ev.Cycle != flow+1 || dur != 20+flow%7 || lane != flow%2 {
				t.Errorf("fill span at cycle %d unit %d: lane %d flow %d dur %d", ev.Cycle, ev.UnitID, lane, flow, dur)
			}
		case schema.KindCounter:
			counters[f.Name] = append(counters[f.Name], fmt.Sprintf("%d:%s", ev.Cycle, value))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// 200 cycles, a miss every 4th: 50 misses, each a begin/end pair on the
	// L1 and a complete fill span on the L2.
	if begins != 50 || ends != 50 || completes != 50 || missCompletes != 0 {
		t.Errorf("span events: %d begins, %d ends, %d completes (%d miss), want 50, 50, 50, 0", begins, ends, completes, missCompletes)
	}
	for k, s := range open {
		if len(s) != 0 {
			t.Errorf("spans left open on unit %d lane %d: flows %v", k.unit, k.lane, s)
		}
	}
	// Every flow id links exactly its miss's four events: begin and end on
	// the L1, the request and the fill span on the L2.
	if len(flowUnits) != 50 {
		t.Errorf("%d flow ids, want 50", len(flowUnits))
	}
	for flow, units := range flowUnits {
		if flow%4 != 0 || units[l1[0]] != 2 || units[l2[0]] != 2 || len(units) != 2 {
			t.Errorf("flow %d: events per unit %v, want 2 on l1d (%d) and 2 on l2 (%d)", flow, units, l1[0], l2[0])
		}
	}
	var wantOcc, wantRate []string
	for c := uint64(25); c <= 200; c += 25 {
		wantOcc = append(wantOcc, fmt.Sprintf("%d:%d", c, int64(c/25)*3-10))
		wantRate = append(wantRate, fmt.Sprintf("%d:%v", c, 0.75+0.001*float64(c)))
	}
	if fmt.Sprint(counters["occupancy"]) != fmt.Sprint(wantOcc) || fmt.Sprint(counters["hit_rate"]) != fmt.Sprint(wantRate) {
		t.Errorf("counter samples:\n occupancy %v\n hit_rate  %v\nwant\n occupancy %v\n hit_rate  %v", counters["occupancy"],
			counters["hit_rate"], wantOcc, wantRate)
	}
}
