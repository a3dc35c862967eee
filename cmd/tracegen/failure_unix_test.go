//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Setrlimit (RLIMIT_FSIZE) exists on Unix systems only: `make cross` vets
// for Windows too.

// A run that fails after creating its output (here: writes fail with EFBIG
// under a file size limit) removes it and exits 1, so no partial file
// passes for the run's trace. The limit is set in a child process.
func TestFailedRunRemovesOutput(t *testing.T) {
	if out := os.Getenv("TRACEGEN_FSIZE_CHILD"); out != "" {
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}))
		os.Exit(run([]string{"--events", "500000", "--units", "4", "-o", out}, os.Stderr))
	}
	out := filepath.Join(t.TempDir(), "big.ctrace")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailedRunRemovesOutput$")
	cmd.Env = append(os.Environ(), "TRACEGEN_FSIZE_CHILD="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
	require.Equal(t, 1, ee.ExitCode(), "stderr: %s", stderr.String())
	require.Contains(t, stderr.String(), "file too large")
	_, err = os.Stat(out)
	require.True(t, os.IsNotExist(err), "the failed run's output is removed: %v", err)
}
