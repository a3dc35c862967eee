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

// A -unit-id-base that leaves too few ids for the simulator's units is a
// usage error found before the output is created (it used to fail on the
// sixth unit, leaving a valid-looking empty trace). The last base that
// fits works; -hazards has one unit fewer (no ROB), so one more base fits.
func TestUnitIDBaseRangeCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.ctrace")
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"-unit-id-base", "65531", "-o", out}, &stderr))
	require.Contains(t, stderr.String(), "-unit-id-base 65531: the 6 units are numbered from it, so it must be 1..65530")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "no output: %v", err)
	stderr.Reset()
	require.Equal(t, 2, run([]string{"-unit-id-base", "0", "-o", out}, &stderr))
	require.Contains(t, stderr.String(), "must be 1..65530")

	for _, c := range []struct {
		args []string
		last uint16
	}{{[]string{"-unit-id-base", "65530"}, 65535}, {[]string{"-hazards", "-unit-id-base", "65531"}, 65535}} {
		stderr.Reset()
		require.Equal(t, 0, run(append(c.args, "-n", "100", "-o", out), &stderr), stderr.String())
		r, err := mmapio.Open(out)
		require.NoError(t, err)
		units := r.Schema().Units
		require.Equal(t, c.last, units[len(units)-1].ID, "%v", c.args)
		require.NoError(t, r.Close())
	}
}

// A run that fails after creating its output (here: writes fail with EFBIG
// under a file size limit) removes it and exits 1. The limit is set in a
// child process.
func TestFailedRunRemovesOutput(t *testing.T) {
	if out := os.Getenv("PIPESIM_FSIZE_CHILD"); out != "" {
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}))
		os.Exit(run([]string{"-n", "20000", "-o", out}, os.Stderr))
	}
	out := filepath.Join(t.TempDir(), "big.ctrace")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailedRunRemovesOutput$")
	cmd.Env = append(os.Environ(), "PIPESIM_FSIZE_CHILD="+out)
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
