package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// A complete span that ends before it begins (an old writer's end-start
// with end < start) is left out by stats and the exports, which say so:
// stats in its notes, naming it, the export in a warning on stderr.
func TestImpossibleSpansAreNamedNotAveraged(t *testing.T) {
	path := impossibleSpanTrace(t)
	code, out, errOut := runTool("stats", path)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `core0\.exec\s+exec\s+2\s+4\s+5\.00\s+4\s+6\s+6`, out)
	require.Contains(t, out, "complete spans ending before they begin: 1\n    span exec on core0.exec at cycle 200, duration -50\n")

	code, _, errOut = runTool("export", "--format", "chrome-json", "-o", filepath.Join(t.TempDir(), "x.json"), path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "trace_reader: warning: "+path+": 1 complete span ends before it begins")
	require.Contains(t, errOut, "the first: span exec on core0.exec at cycle 200, duration -50\n")
}

// impossibleSpanTrace writes ctracetest.WriteImpossibleSpans's three
// complete spans of core0.exec: [100, 104], one at cycle 200 whose end,
// 150, is before it, and [210, 216].
func impossibleSpanTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "impossible.ctrace")
	require.NoError(t, ctracetest.WriteImpossibleSpans(path))
	return path
}
