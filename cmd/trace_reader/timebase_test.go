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
	f.Emit(u, 5_000_400, 2) // 5 us and 0.4 ns: rounded to 5 us
	require.NoError(t, tr.Close())
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "t.json")
	require.Equal(t, 0, run([]string{"export", "--format", "chrome-json", trace, "-o", out}, &stdout, &stderr), stderr.String())
	// New-user finding: real time at 1 ps a cycle merged every 1,000 cycles
	// into one nanosecond without a word; now it says so, how many times
	// were rounded, and how to see each cycle at what cost.
	require.Equal(t, "trace_reader: warning: 1 timestamp fell between two nanoseconds and was rounded to the nearest (the trace's time base is 1 ps a cycle; "+
		"the viewers keep whole nanoseconds): events under a nanosecond apart may share a timestamp. "+
		"--ns-per-cycle 1 draws one cycle a nanosecond instead, which changes the time scale: times are then 1000x the simulated time\n", stderr.String())
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

// Akita finding: a picosecond trace of 1 GHz clocks (every time a whole
// nanosecond) warned that cycles merge and suggested --ns-per-cycle 1,
// which makes its times 1000x too long. Nothing is rounded there: no
// warning. A --ns-per-cycle that rounds says so.
func TestExportWarnsOnlyWhenTimesAreRounded(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "ghz.ctrace")
	tr, err := chronon.Create(trace, chronon.WithTimeBase(chronon.Picoseconds), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("gpu.l2")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("timebase ghz n={}")
	for i := uint64(0); i < 100; i++ {
		f.Emit(u, i*1000, i) // 1 GHz: every time a whole nanosecond
	}
	f.Emit(u, 100_001, 100) // between two nanoseconds, and at --ns-per-cycle 2.5 (250,002.5 ns)
	require.NoError(t, tr.Close())
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "t.pftrace")
	// The same without the odd event: whole nanoseconds only.
	wholeTrace := filepath.Join(dir, "whole.ctrace")
	tr, err = chronon.Create(wholeTrace, chronon.WithTimeBase(chronon.Picoseconds), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err = tr.NewUnit("gpu.l2")
	require.NoError(t, err)
	for i := uint64(0); i < 100; i++ {
		f.Emit(u, i*1000, i)
	}
	require.NoError(t, tr.Close())
	for _, format := range []string{"perfetto", "chrome-json"} {
		stderr.Reset()
		require.Equal(t, 0, run([]string{"export", "--format", format, wholeTrace, "-o", out}, &stdout, &stderr), stderr.String())
		require.Empty(t, stderr.String(), format)
		stderr.Reset()
		require.Equal(t, 0, run([]string{"export", "--format", format, trace, "-o", out}, &stdout, &stderr), stderr.String())
		require.Contains(t, stderr.String(), "1 timestamp fell between two nanoseconds", format)
	}
	stderr.Reset()
	require.Equal(t, 0, run([]string{"export", trace, "-o", out, "--ns-per-cycle", "2.5"}, &stdout, &stderr), stderr.String())
	require.Equal(t, "trace_reader: warning: --ns-per-cycle 2.5: 1 timestamp fell between two nanoseconds and was rounded to the nearest (the viewers keep whole nanoseconds)\n", stderr.String())
}
