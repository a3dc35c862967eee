package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/rewrite"
)

// Two pipeline runs merged into one trace (as stats of several files, or
// trace_reader merge, make it) have the same flow ids: stage latencies pair
// the events of a flow within its run only, so every Stages row stays in
// one run and each run has its own pipeline's rows with its own counts.
func TestStatsStagesWithinRuns(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, c := range []struct {
		name string
		n    uint64
	}{{"hz", 2000}, {"pipe", 500}} {
		p := filepath.Join(dir, c.name+".ctrace")
		tr, err := chronon.Create(p, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		require.NoError(t, pipesim.Run(tr, c.n))
		require.NoError(t, tr.Close())
		paths = append(paths, p)
	}
	m, err := mmapio.OpenAll(paths)
	require.NoError(t, err)
	merged := filepath.Join(dir, "merged.ctrace")
	f, err := os.Create(merged)
	require.NoError(t, err)
	_, err = rewrite.Merge(f, m, rewrite.MergeOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, m.Close())

	r, err := mmapio.Open(merged)
	require.NoError(t, err)
	defer r.Close()
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Len(t, rep.Stages, 8, "the 4 stage pairs of each run")
	counts := map[string]uint64{}
	for _, s := range rep.Stages {
		from, _, _ := strings.Cut(s.From, "/")
		to, _, _ := strings.Cut(s.To, "/")
		require.Equal(t, from, to, "%s -> %s pairs two runs", s.From, s.To)
		counts[from+" "+s.From[len(from)+1:]+" -> "+s.To[len(to)+1:]] = s.Count
	}
	require.Equal(t, uint64(2000), counts["hz core0.fetch -> core0.decode"])
	require.Equal(t, uint64(500), counts["pipe core0.fetch -> core0.decode"])
	for _, s := range rep.Stages { // within a run, fetch -> decode is exactly the fetch latency
		if strings.HasSuffix(s.From, "/core0.fetch") {
			require.Equal(t, uint64(pipesim.LatFetch), s.Min)
			require.Equal(t, uint64(pipesim.LatFetch), s.Max)
		}
	}
}
