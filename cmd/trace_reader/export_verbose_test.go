package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// export -v says what stats notes: the parent links drawn and the parent
// ids that named no span, the spans begun before the window, the complete
// spans left out for ending before they begin (it said only the events,
// spans and counters).
func TestExportVerboseSaysParentsAndSpans(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.ctrace")
	_, err := workload.Run("tasks", tasks, 20_000, 4, 1)
	require.NoError(t, err)
	for _, c := range []struct {
		cycles string
		q      mmapio.Query
	}{{"", mmapio.Query{}}, {"50000-150000", mmapio.Query{}.WithCycles(50_000, 150_000)}} {
		// What the export itself counts, for the same selection.
		r, err := mmapio.Open(tasks)
		require.NoError(t, err)
		res, err := export.Export(r, c.q, filepath.Join(dir, "direct.json"), export.WithFormat("chrome-json"))
		require.NoError(t, err)
		require.NoError(t, r.Close())
		require.NotZero(t, res.ParentLinks)

		args := []string{"export", "-v", "--format", "chrome-json", "-o", filepath.Join(dir, "x.json"), tasks}
		if c.cycles != "" {
			args = append(args, "--cycles", c.cycles)
			require.NotZero(t, res.ClippedSpans, "the window starts inside spans")
		}
		code, _, errOut := runTool(args...)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, fmt.Sprintf("Parents: %d links drawn (an arrow from the parent's begin), %d missing (the parent id named no span: never begun, outside the selection, or ended before the child began)\n",
			res.ParentLinks, res.ParentsMissing), c.cycles)
		if c.cycles != "" {
			require.Contains(t, errOut, fmt.Sprintf("Spans: %d begun before the window (drawn from its start), 0 complete spans ending before they begin (left out)\n", res.ClippedSpans))
		} else {
			require.NotContains(t, errOut, "Spans: ", "nothing to say")
		}
	}

	// A span that ends before it begins: counted (stats notes it).
	path := impossibleSpanTrace(t)
	code, _, errOut := runTool("export", "-v", "--format", "perfetto", "-o", filepath.Join(dir, "i.pftrace"), path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "Spans: 0 begun before the window (drawn from its start), 1 complete spans ending before they begin (left out)\n")
	require.NotContains(t, errOut, "Parents: ", "no format has a parent")
}
