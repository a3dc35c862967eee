package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

// twoHazardRuns writes the two pipesim -hazards runs of the new-user trial:
// hz (n1 slots) and pipe (n2), the same flow ids (sequence numbers) in both.
func twoHazardRuns(t *testing.T, n1, n2 uint64) []string {
	dir := t.TempDir()
	var paths []string
	for _, c := range []struct {
		name string
		n    uint64
	}{{"hz.ctrace", n1}, {"pipe.ctrace", n2}} {
		p := filepath.Join(dir, c.name)
		tr, err := chronon.Create(p, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		require.NoError(t, pipesim.RunHazards(tr, c.n))
		require.NoError(t, tr.Close())
		paths = append(paths, p)
	}
	return paths
}

// export --format kanata of two runs: one row per instruction of each run
// (25000, 5000 under the race detector), the I line's thread id the run's index; the merged file of the
// same runs exports the same log.
func TestKanataOfSeveralRuns(t *testing.T) {
	// Under the race detector a fifth of the instructions (the runtime's
	// writing and the exports scale with them; what it watches does not):
	// make test's stage 5 runs the trial's 20,000 and 5,000 without it.
	n1, n2 := 20000, 5000
	if raceEnabled {
		n1, n2 = 4000, 1000
	}
	paths := twoHazardRuns(t, uint64(n1), uint64(n2))
	out := filepath.Join(t.TempDir(), "two.kanata")
	code, _, stderr := runTool(append([]string{"export", "--format", "kanata", "-o", out}, paths...)...)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	threads := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, "\t"); f[0] == "I" {
			threads[f[3]]++
		}
	}
	require.Equal(t, map[string]int{"0": n1, "1": n2}, threads)

	merged := filepath.Join(t.TempDir(), "m.ctrace")
	code, _, stderr = runTool(append([]string{"merge", "-o", merged}, paths...)...)
	require.Equal(t, 0, code, stderr)
	again := filepath.Join(t.TempDir(), "merged.kanata")
	code, _, stderr = runTool("export", "--format", "kanata", "-o", again, merged)
	require.Equal(t, 0, code, stderr)
	b2, err := os.ReadFile(again)
	require.NoError(t, err)
	require.Equal(t, string(b), string(b2), "a merged file exports as the files it was merged from")
}

// stats of two runs pairs flow events within a run only: every Stages row
// names units of one label.
func TestStatsStagesOfSeveralRuns(t *testing.T) {
	paths := twoHazardRuns(t, 2000, 500)
	code, out, stderr := runTool(append([]string{"stats", "--json"}, paths...)...)
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Stages []struct{ From, To string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.NotEmpty(t, rep.Stages)
	for _, s := range rep.Stages {
		from, _, _ := strings.Cut(s.From, "/")
		to, _, _ := strings.Cut(s.To, "/")
		require.Equal(t, from, to, "%s -> %s", s.From, s.To)
	}
}

// Chrome JSON of two runs: no bind_id spans two pids.
func TestExportChromeJSONOfSeveralRuns(t *testing.T) {
	paths := twoHazardRuns(t, 200, 50)
	out := filepath.Join(t.TempDir(), "two.json")
	code, _, stderr := runTool(append([]string{"export", "--format", "chrome-json", "-o", out}, paths...)...)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	pids := map[string]map[float64]bool{}
	for _, e := range doc.TraceEvents {
		if id, ok := e["bind_id"].(string); ok {
			if pids[id] == nil {
				pids[id] = map[float64]bool{}
			}
			pids[id][e["pid"].(float64)] = true
		}
	}
	require.NotEmpty(t, pids)
	for id, ps := range pids {
		require.Len(t, ps, 1, "bind_id %s in pids %v", id, ps)
	}
}

// An empty --cycles window is "no events in the selection", naming the
// file and the window; exit status 1, no output.
func TestExportKanataEmptyWindow(t *testing.T) {
	paths := twoHazardRuns(t, 20, 5)
	out := filepath.Join(t.TempDir(), "empty.kanata")
	code, _, stderr := runTool("export", "--format", "kanata", "--cycles", "100000000-100000010", "-o", out, paths[0])
	require.Equal(t, 1, code)
	require.Contains(t, stderr, paths[0])
	require.Contains(t, stderr, "no events in the selection (cycles 100000000-100000010)")
	require.NotContains(t, stderr, "neither flows nor spans")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err))
}
