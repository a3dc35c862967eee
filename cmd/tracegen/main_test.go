package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// When CHRONON_TRACE selects part of the run, tracegen says how many
// events were written beside the number it emitted; otherwise it prints the
// one number.
func TestReportsEventsWritten(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w1.ctrace")
	var stderr bytes.Buffer
	t.Setenv("CHRONON_TRACE", "units=core0.fetch")
	require.Equal(t, 0, run([]string{"--workload", "w1", "--events", "10000", "--units", "4", "-o", out}, &stderr), stderr.String())
	m := regexp.MustCompile(`: 10000 events \((\d+) written\), 4 units -> `).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, stderr.String())
	require.NotEqual(t, "10000", m[1])

	t.Setenv("CHRONON_TRACE", "")
	stderr.Reset()
	require.Equal(t, 0, run([]string{"--workload", "w1", "--events", "10000", "--units", "4", "-o", out}, &stderr), stderr.String())
	require.Regexp(t, `: 10000 events, 4 units -> `, stderr.String())
}

// --unit-id-base numbers the workload's units from the given id (w1 and
// mixed), so rank files can be written with disjoint ids; 0 is refused.
func TestUnitIDBaseFlag(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"--unit-id-base", "0", "-o", filepath.Join(dir, "x.ctrace")}, &stderr))
	require.Contains(t, stderr.String(), "--unit-id-base must be 1..65535")
	for _, w := range []string{"w1", "mixed"} {
		out := filepath.Join(dir, w+".ctrace")
		stderr.Reset()
		require.Equal(t, 0, run([]string{"--workload", w, "--events", "1000", "--units", "4", "--unit-id-base", "33", "-o", out}, &stderr), stderr.String())
		r, err := mmapio.Open(out)
		require.NoError(t, err)
		var ids []uint16
		for _, u := range r.Schema().Units {
			ids = append(ids, u.ID)
		}
		require.Equal(t, []uint16{33, 34, 35, 36}, ids, w)
		for _, b := range r.Blocks() {
			for _, u := range b.Units {
				require.True(t, u >= 33 && u <= 36, "%s: block unit %d", w, u)
			}
		}
		require.NoError(t, r.Close())
	}
}

// --ring-budget sets the writer's bound on ring memory: with many units a
// small bound seals small chunks (more, smaller blocks), 0 none (every
// unit's blocks fill up); a bound under 64 KiB or negative is a usage
// error.
func TestRingBudgetFlag(t *testing.T) {
	dir := t.TempDir()
	blocks := func(args ...string) int {
		t.Helper()
		out := filepath.Join(dir, "rb.ctrace")
		var stderr bytes.Buffer
		require.Equal(t, 0, run(append([]string{"--events", "200000", "--units", "100", "--block-size", "1048576", "-o", out}, args...), &stderr), stderr.String())
		r, err := mmapio.Open(out)
		require.NoError(t, err)
		defer r.Close()
		return len(r.Blocks())
	}
	small, unbounded := blocks("--ring-budget", "65536"), blocks("--ring-budget", "0")
	require.Greater(t, small, 2*unbounded, "a small budget seals smaller chunks")
	for _, bad := range []string{"-5", "100"} {
		var stderr bytes.Buffer
		require.Equal(t, 2, run([]string{"--ring-budget", bad, "-o", filepath.Join(dir, "x.ctrace")}, &stderr))
		require.Contains(t, stderr.String(), "--ring-budget "+bad+": want 0 (no bound) or at least 65536 bytes")
	}
}
