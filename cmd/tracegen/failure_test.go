package main

import (
	"bytes"
	"os"
	"path/filepath"
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
