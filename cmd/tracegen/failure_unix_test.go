//go:build unix

package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// RLIMIT_FSIZE exists on Unix systems only: `make cross` vets for Windows
// too.

// A run that fails after creating its output (here: writes fail with EFBIG
// under a file size limit) removes it and exits 1, so no partial file
// passes for the run's trace. The limit is set in a child process.
func TestFailedRunRemovesOutput(t *testing.T) {
	out, code, stderr := ctracetest.RunUnderFileSizeLimit(t, 64<<10, func(out string) int {
		return run([]string{"--events", "500000", "--units", "4", "-o", out}, os.Stderr)
	})
	require.Equal(t, 1, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "file too large")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "the failed run's output is removed: %v", err)
}
