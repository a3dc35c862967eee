package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Without --ns-per-cycle a trace with a time base exports in real time
// (picoseconds here: 1000 ticks a nanosecond, times are not 1000x); the
// option, when given, wins over it.
func TestExportHonoursTheTimeBase(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "ps.ctrace")
	tr, err := chronon.Create(trace, chronon.WithTimeBase(chronon.Picoseconds), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("gpu.l2")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("timebase cli n={}")
	f.Emit(u, 0, 0)
	f.Emit(u, 5_000_000, 1) // 5 us
	require.NoError(t, tr.Close())
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "t.json")
	require.Equal(t, 0, run([]string{"export", "--format", "chrome-json", trace, "-o", out}, &stdout, &stderr), stderr.String())
	// New-user finding: real time at 1 ps a cycle merged every 1,000 cycles
	// into one nanosecond without a word; now it says so, and how to see
	// each cycle.
	require.Equal(t, "trace_reader: warning: the trace's time base is 1 ps a cycle, under a nanosecond: the viewers keep whole nanoseconds, "+
		"so the cycles of one nanosecond share a timestamp (--ns-per-cycle 1 shows one cycle a nanosecond, times then 1000x the simulated time)\n", stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(b), `"ts":5,`, "5,000,000 ps are 5 us")
	stderr.Reset()
	require.Equal(t, 0, run([]string{"export", "--format", "chrome-json", trace, "-o", out, "--ns-per-cycle", "1"}, &stdout, &stderr), stderr.String())
	require.Empty(t, stderr.String(), "the scale was asked for")
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(b), `"ts":5000,`, "one ns per cycle, as asked")
}
