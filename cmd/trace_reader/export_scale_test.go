package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

// Under 1 ns per cycle the export keeps whole cycles and says so on stderr.
func TestExportSaysWhenItScalesTime(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "pipe.ctrace")
	tr, err := chronon.Create(trace, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	require.NoError(t, pipesim.Run(tr, 20))
	require.NoError(t, tr.Close())
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "p.pftrace")
	require.Equal(t, 0, run([]string{"export", trace, "-o", out, "--ns-per-cycle", "0.25"}, &stdout, &stderr), stderr.String())
	require.Contains(t, stderr.String(), "exported at 1 ns per cycle, times are 4x the simulated time")
	stderr.Reset()
	require.Equal(t, 0, run([]string{"export", trace, "-o", out, "--ns-per-cycle", "2"}, &stdout, &stderr), stderr.String())
	require.Empty(t, stderr.String())
}

// The bar takes the exporters' progress in cycles of the window.
func TestProgressCycles(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, start: 100, end: 300}
	p.cycles()(100, 200)
	require.Contains(t, b.String(), " 50%  65536 events")
	var nilBar *progress
	nilBar.cycles()(1, 2) // a nil bar is a no-op
}
