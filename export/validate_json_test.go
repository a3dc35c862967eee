package export

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
)

// validateChrome parses an exported Trace Event Format file with
// encoding/json and applies the same checks as validatePerfetto: threads
// named before use, timestamps non-decreasing, slices balanced per thread,
// counters with a value. Tracks are identified by tid (uuid = tid).
func validateChrome(path string) (*vTrace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	tr := &vTrace{tracks: map[uint64]*vTrack{}}
	open := map[uint64]int{}
	lastTS := -1.0
	counters := map[uint64]string{}
	for _, e := range doc.TraceEvents {
		ph, _ := e["ph"].(string)
		tid := uint64(num(e["tid"]))
		if ph == "M" {
			if e["name"] == "thread_name" {
				name := e["args"].(map[string]any)["name"].(string)
				if tr.tracks[tid] != nil {
					return nil, fmt.Errorf("tid %d named twice", tid)
				}
				tr.tracks[tid] = &vTrack{uuid: tid, name: name}
			}
			continue
		}
		ts := num(e["ts"])
		if ts < lastTS {
			return nil, fmt.Errorf("ts %v after %v", ts, lastTS)
		}
		lastTS = ts
		ev := vEvent{ts: uint64(math.Round(ts * 1000)), track: tid, args: map[string]any{}}
		if name, ok := e["name"].(string); ok {
			ev.name = name
		}
		if args, ok := e["args"].(map[string]any); ok {
			ev.args = args
		}
		if id, ok := e["bind_id"].(string); ok {
			v, err := strconv.ParseUint(id, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("bind_id %q", id)
			}
			ev.flows = []uint64{v}
		}
		switch ph {
		case "C":
			v, ok := ev.args["value"].(float64)
			if !ok {
				return nil, fmt.Errorf("counter %q without a numeric value", ev.name)
			}
			ev.typ, ev.counter = typeCounter, v
			counters[tid] = ev.name
			ev.track = 1<<40 + uint64(len(counters)) // counters are keyed by name, not tid
			tr.events = append(tr.events, ev)
			continue
		case "B":
			ev.typ = typeSliceBegin
			open[tid]++
		case "E":
			ev.typ = typeSliceEnd
			if open[tid] == 0 {
				return nil, fmt.Errorf("E without B on tid %d at %v", tid, ts)
			}
			open[tid]--
		case "i", "X":
			ev.typ = typeInstant
			if ph == "X" && num(e["dur"]) != 0 {
				return nil, fmt.Errorf("X event with a duration")
			}
		default:
			return nil, fmt.Errorf("unexpected ph %q", ph)
		}
		if tr.tracks[tid] == nil {
			return nil, fmt.Errorf("event %q on unnamed tid %d", ev.name, tid)
		}
		tr.events = append(tr.events, ev)
	}
	for tid, n := range open {
		if n != 0 {
			return nil, fmt.Errorf("%d slices open on tid %d", n, tid)
		}
	}
	return tr, nil
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
