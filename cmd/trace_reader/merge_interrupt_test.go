package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Once an interrupt is being handled (the handler removed the temporary
// output), merge and recover fail without a word: the rename of the removed
// temporary used to print "trace_reader: OUT: no such file or directory"
// before the process died of the signal. Here the failure is a missing
// input, with the interrupt flag set as the handler sets it.
func TestInterruptedMergeAndRecoverAreSilent(t *testing.T) {
	dir := t.TempDir()
	dying.Store(true)
	defer dying.Store(false)
	for _, args := range [][]string{
		{"merge", "-o", filepath.Join(dir, "m.ctrace"), filepath.Join(dir, "a.ctrace"), filepath.Join(dir, "b.ctrace")},
		{"recover", filepath.Join(dir, "a.ctrace"), "-o", filepath.Join(dir, "r.ctrace")},
	} {
		var so, se bytes.Buffer
		require.Equal(t, 1, run(args, &so, &se), args[0])
		require.Empty(t, se.String(), args[0])
	}
}
