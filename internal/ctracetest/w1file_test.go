package ctracetest

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestGenerateW1Bench writes the 20 M-event benchmark trace to the path in
// $CTRACE_W1_OUT (skipped otherwise: it takes tens of seconds);
// $CTRACE_W1_EVENTS asks for another number of events, and
// CTRACE_W1_LAYOUT=cpp for the original C++ writer's layout (every unit's
// events in one stream of 64 KiB blocks, no unit sets, no unit stats) instead
// of ours (a block per unit):
//
//	CTRACE_W1_OUT=/tmp/w1.ctrace go test ./internal/ctracetest -run GenerateW1Bench -v
func TestGenerateW1Bench(t *testing.T) {
	out := os.Getenv("CTRACE_W1_OUT")
	if out == "" {
		t.Skip("set CTRACE_W1_OUT=PATH to write the 20M-event W1 benchmark trace")
	}
	n := W1BenchEvents
	if v := os.Getenv("CTRACE_W1_EVENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			t.Fatalf("CTRACE_W1_EVENTS=%q: want a number of events", v)
		}
	}
	opts := W1BenchOptions()
	switch l := os.Getenv("CTRACE_W1_LAYOUT"); l {
	case "", "go":
	case "cpp":
		opts.PerUnit, opts.UnitStats = false, false
	default:
		t.Fatalf("CTRACE_W1_LAYOUT=%q: want go or cpp", l)
	}
	start := time.Now()
	if err := WriteW1File(out, n, W1BenchUnits, opts); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(out)
	t.Logf("wrote %s: %d bytes in %v", out, fi.Size(), time.Since(start))
}
