package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/rewrite"
)

// mergeTraces merges traces (renamed to names, so that the labels are the
// names without .ctrace) as trace_reader does for several files, and
// returns the merged trace and the labels.
func mergeTraces(t *testing.T, traces, names []string) (string, []string) {
	dir := t.TempDir()
	paths := make([]string, len(traces))
	for i, tr := range traces {
		paths[i] = filepath.Join(dir, names[i])
		require.NoError(t, os.Rename(tr, paths[i]))
	}
	m, err := mmapio.OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	out := filepath.Join(dir, "merged.ctrace")
	f, err := os.Create(out)
	require.NoError(t, err)
	_, err = rewrite.Merge(f, m, rewrite.MergeOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return out, mmapio.Labels(m.Readers())
}

// copyFile copies path to a new temporary file and returns its path.
func copyFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), filepath.Base(path))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
	return dst
}

// Two pipeline runs read as one timeline have the same flow ids (sequence
// numbers from 0): each run's instructions are its own rows, the I line's
// thread id the run's index, never one row mixing both runs.
func TestRunsKanata(t *testing.T) {
	// Each run is exported on its own first: mergeTraces moves its inputs,
	// so the merge takes copies (the runs are written once, not twice).
	n := uint64(20000)
	if raceEnabled {
		// The runs' sizes are not what the test is about (their ids
		// colliding is, from the first instruction on): a quarter still
		// spans several blocks of each file. make test runs the full size
		// without the race detector.
		n /= 4
	}
	hz, pipe := hazardTrace(t, n), hazardTrace(t, n/4)
	single, _, _ := exportKanataLog(t, hz, mmapio.Query{})
	other, _, _ := exportKanataLog(t, pipe, mmapio.Query{})
	trace, labels := mergeTraces(t, []string{copyFile(t, hz), copyFile(t, pipe)}, []string{"hz.ctrace", "pipe.ctrace"})
	require.Equal(t, []string{"hz", "pipe"}, labels)
	res, out := exportFile(t, trace, mmapio.Query{}, WithFormat(FormatKanata), WithProcesses(labels))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lg, err := validateKanata(data)
	require.NoError(t, err)

	require.Equal(t, single.Instructions+other.Instructions, res.Instructions)
	require.Len(t, lg.insts, int(res.Instructions))
	require.Equal(t, single.Flushed+other.Flushed, res.Flushed)
	require.Equal(t, single.Dependencies+other.Dependencies, res.Dependencies)
	perThread := map[uint64]uint64{}
	for _, in := range lg.insts {
		perThread[in.thread]++
		// Every event of the row is of its run: its details name the
		// run's units only.
		for _, line := range strings.Split(in.detail, `\n`) {
			if line == "" {
				continue
			}
			_, rest, _ := strings.Cut(line, " ")
			if !strings.HasPrefix(rest, labels[in.thread]+"/") { // not testify: it runs for every line
				t.Fatalf("instruction of thread %d has %q", in.thread, line)
			}
		}
	}
	require.Equal(t, map[uint64]uint64{0: single.Instructions, 1: other.Instructions}, perThread)

	// The merged file read on its own (trace_reader merge, then export)
	// has the same runs: its metadata names them.
	_, again := exportFile(t, trace, mmapio.Query{}, WithFormat(FormatKanata))
	data2, err := os.ReadFile(again)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, data2), "a merged file read later exports as the multi-file read")
}

// runOfTrack is the name of the top track (a run's process, or the
// simulation's root) a Perfetto track hangs under.
func runOfTrack(tr *vTrace, uuid uint64) string {
	t := tr.tracks[uuid]
	for t != nil && t.parent != 0 {
		t = tr.tracks[t.parent]
	}
	if t == nil {
		return "?"
	}
	return t.name
}

// Perfetto flow ids are distinct per run: no arrow joins two runs.
func TestRunsPerfettoFlows(t *testing.T) {
	trace, labels := mergedRuns(t)
	_, out := exportFile(t, trace, mmapio.Query{}, WithProcesses(labels))
	tr, err := validatePerfetto(out)
	require.NoError(t, err)
	runs := map[uint64]map[string]bool{}
	flows := 0
	for _, e := range tr.events {
		for _, f := range e.flows {
			flows++
			if runs[f] == nil {
				runs[f] = map[string]bool{}
			}
			runs[f][runOfTrack(tr, e.track)] = true
		}
	}
	require.Positive(t, flows)
	require.Len(t, runs, 100, "50 instructions in each run")
	for f, rs := range runs {
		require.Len(t, rs, 1, "flow %#x in runs %v", f, rs)
	}
	// Read later on its own, the merged file exports the same bytes.
	_, again := exportFile(t, trace, mmapio.Query{})
	a, err := os.ReadFile(out)
	require.NoError(t, err)
	b, err := os.ReadFile(again)
	require.NoError(t, err)
	require.True(t, bytes.Equal(a, b), "a merged file read later exports as the multi-file read")
}

// Chrome JSON bind ids never span two pids (two runs).
func TestRunsChromeBindIDs(t *testing.T) {
	trace, labels := mergedRuns(t)
	_, out := exportFile(t, trace, mmapio.Query{}, WithFormat(FormatChromeJSON), WithProcesses(labels))
	_, err := validateChrome(out)
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	pids := map[string]map[float64]bool{}
	for _, e := range doc.TraceEvents {
		id, ok := e["bind_id"].(string)
		if !ok {
			continue
		}
		if pids[id] == nil {
			pids[id] = map[float64]bool{}
		}
		pids[id][e["pid"].(float64)] = true
	}
	require.Len(t, pids, 100, "50 instructions in each run")
	for id, ps := range pids {
		require.Len(t, ps, 1, "bind_id %s in pids %v", id, ps)
	}
}
