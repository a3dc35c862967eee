package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
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
