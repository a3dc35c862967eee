package main

import (
	"bytes"
	"os"
	"path/filepath"
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
