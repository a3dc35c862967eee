package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// A complete span that ends before it begins (an old writer's end-start
// with end < start) is left out by stats and the exports, which say so:
// stats in its notes, naming it, the export in a warning on stderr.
func TestImpossibleSpansAreNamedNotAveraged(t *testing.T) {
	path := impossibleSpanTrace(t)
	code, out, errOut := runTool("stats", path)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `core0\.exec\s+exec\s+1\s+4\s+4\.00\s+4\s+4\s+4`, out)
	require.Contains(t, out, "complete spans ending before they begin: 1\n    span exec on core0.exec at cycle 200, duration -50\n")

	code, _, errOut = runTool("export", "--format", "chrome-json", "-o", filepath.Join(t.TempDir(), "x.json"), path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "trace_reader: warning: "+path+": 1 complete spans end before they begin")
	require.Contains(t, errOut, "the first: span exec on core0.exec at cycle 200, duration -50\n")
}

// impossibleSpanTrace writes two complete spans of core0.exec: [100, 104]
// and one at cycle 200 whose end, 150, is before it.
func impossibleSpanTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "impossible.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.exec")
	require.NoError(t, err)
	exec := chronon.MustFormat3[uint32, uint64, uint64]("exec lane={} flow={} dur={}", chronon.WithName("exec"),
		chronon.WithKind(schema.KindSpanComplete, schema.RoleLane, schema.RoleFlow, schema.RoleDuration))
	exec.Emit(u, 100, 0, 1, 4)
	start, end := uint64(200), uint64(150)
	exec.Emit(u, start, 0, 2, end-start)
	require.NoError(t, tr.Close())
	return path
}
