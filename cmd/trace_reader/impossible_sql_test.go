//go:build cgo

package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// sql's spans leave out a complete span that ends before it begins, and
// the command says so on stderr, naming it.
func TestSQLWarnsOfImpossibleSpans(t *testing.T) {
	path := impossibleSpanTrace(t)
	code, out, errOut := runTool("sql", "--csv", path, "-c", "SELECT count(*), sum(dur) FROM spans")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2,10\n", "the spans of 4 and 6 cycles, not the impossible one")
	require.Contains(t, errOut, "trace_reader: warning: "+path+": the spans tables left out complete spans that end before they begin")
	require.Contains(t, errOut, "the first: span exec on core0.exec at cycle 200, duration -50\n")
	code, _, errOut = runTool("sql", path, "-c", "SELECT count(*) FROM events")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut, "no span read, no warning")
}
