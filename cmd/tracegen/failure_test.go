package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// A --unit-id-base that leaves too few ids for --units is a usage error
// found before the output is created (it used to fail on the unit past
// 65535, leaving a valid-looking empty trace); the last base that fits
// works.
func TestUnitIDBaseRangeCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.ctrace")
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"--units", "16", "--unit-id-base", "65535", "-o", out}, &stderr))
	require.Contains(t, stderr.String(), "--unit-id-base must be 1..65520")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "no output: %v", err)

	stderr.Reset()
	require.Equal(t, 0, run([]string{"--units", "16", "--unit-id-base", "65520", "--events", "1000", "-o", out}, &stderr), stderr.String())
	r, err := mmapio.Open(out)
	require.NoError(t, err)
	defer r.Close()
	units := r.Schema().Units
	require.Equal(t, uint16(65535), units[len(units)-1].ID)
}

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
