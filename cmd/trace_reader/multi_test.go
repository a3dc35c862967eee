package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// writeTrace writes events with schema s to dir/name in the layout opts.
func writeTrace(t *testing.T, dir, name string, s *schema.Schema, evs []ctracetest.Event, opts ctracetest.Options) string {
	t.Helper()
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// ourLayout is our runtime writer's layout; cLayout the original writer's
// (one stream, no unit sets).
var (
	ourLayout = ctracetest.W1BenchOptions()
	cLayout   = ctracetest.Options{BlockSize: 4096, Compress: true, Level: zstd.SpeedFastest, NoUnitSets: true}
)

// timelineInputs are files of every kind the reading commands merge: W1
// of different seeds and unit counts in both layouts (one with a rank in
// its metadata), the mixed workload written by the Go runtime, and a file
// of the original C++ writer. Written once per test binary and shared, read
// only, by the tests that read them (five; 1.4 s of CPU each time under
// the race detector); TestMain removes them.
func timelineInputs(t *testing.T) (paths, labels []string) {
	t.Helper()
	timeline.Do(func() { timeline.paths, timeline.err = writeTimelineInputs() })
	require.NoError(t, timeline.err)
	return slices.Clone(timeline.paths), []string{"a", "rank2", "mixed", "multiblock"}
}

var timeline struct {
	sync.Once
	dir   string
	paths []string
	err   error
}

func writeTimelineInputs() ([]string, error) {
	dir, err := os.MkdirTemp("", "trace_reader-timeline")
	if err != nil {
		return nil, err
	}
	timeline.dir = dir
	write := func(name string, s *schema.Schema, evs []ctracetest.Event, opts ctracetest.Options) (string, error) {
		b, err := ctracetest.Build(s, evs, opts)
		if err != nil {
			return "", err
		}
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, b, 0o644)
	}
	a, err := write("a.ctrace", ctracetest.W1Schema(16), ctracetest.W1Events(20000, 16, 1), ourLayout)
	if err != nil {
		return nil, err
	}
	s := ctracetest.W1Schema(5)
	s.Metadata = []schema.KeyValue{{Key: "rank", Value: "2"}}
	b, err := write("b.ctrace", s, ctracetest.W1Events(15000, 5, 9), cLayout)
	if err != nil {
		return nil, err
	}
	mixed := filepath.Join(dir, "mixed.ctrace")
	if _, err := workload.Run("mixed", mixed, 5000, 3, 4, chronon.WithAutoMetadata(false)); err != nil {
		return nil, err
	}
	return []string{a, b, mixed, ref("multiblock.ctrace")}, nil
}

// expectedTimeline merges the files' own dumps (each run alone through the
// tool) as the timeline must: stable by cycle, ties in file order, units
// labelled.
func expectedTimeline(t *testing.T, paths, labels []string) string {
	t.Helper()
	type line struct {
		cycle uint64
		text  string
	}
	var all []line
	for i, p := range paths {
		r, err := mmapio.Open(p)
		require.NoError(t, err)
		var names []string
		for _, u := range r.Units() {
			names = append(names, u.Name+": ")
		}
		r.Close()
		code, out, errOut := runTool("dump", p)
		require.Equal(t, 0, code, errOut)
		for _, l := range strings.SplitAfter(out, "\n") {
			if l == "" {
				continue
			}
			c, err := strconv.ParseUint(strings.TrimSpace(l[1:11]), 10, 64)
			require.NoError(t, err)
			if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(l[13:], n) }) {
				l = l[:13] + labels[i] + "/" + l[13:] // events of unit 0 print without a unit
			}
			all = append(all, line{c, l})
		}
	}
	slices.SortStableFunc(all, func(a, b line) int {
		switch {
		case a.cycle < b.cycle:
			return -1
		case a.cycle > b.cycle:
			return 1
		}
		return 0
	})
	var sb strings.Builder
	for _, l := range all {
		sb.WriteString(l.text)
	}
	return sb.String()
}

func TestSeveralFilesAreOneTimeline(t *testing.T) {
	paths, labels := timelineInputs(t)
	want := expectedTimeline(t, paths, labels)
	code, out, errOut := runTool(append([]string{"dump"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, out)
	for _, l := range labels {
		require.Contains(t, out, "] "+l+"/core0.")
	}

	// convert is the same; --limit cuts the timeline.
	code, out, _ = runTool(append([]string{"convert", "--limit", "5"}, paths...)...)
	require.Equal(t, 0, code)
	require.Equal(t, want, out)
	code, out, _ = runTool(append([]string{"dump", "--limit", "100"}, paths...)...)
	require.Equal(t, 0, code)
	require.Equal(t, 100, strings.Count(out, "\n"))
	require.True(t, strings.HasPrefix(want, out))

	// --unit matches the labelled names, --cycles every file.
	code, out, errOut = runTool(append([]string{"filter", "--unit", "rank2/core0.fe", "--cycles", "2000-30000"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	// The labelled lines of the timeline it keeps, in order: the timeline
	// filtered, not the files dumped and merged again.
	var kept strings.Builder
	for l := range strings.Lines(want) {
		c, _ := strconv.ParseUint(strings.TrimSpace(l[1:11]), 10, 64)
		if strings.Contains(l, "] rank2/core0.fetch: ") && c >= 2000 && c <= 30000 {
			kept.WriteString(l)
		}
	}
	require.Equal(t, kept.String(), out)
	require.NotEmpty(t, out)
	code, out, _ = runTool(append([]string{"filter", "--unit", "core0.fetch"}, paths...)...)
	require.Equal(t, 0, code)
	for _, l := range labels {
		require.Contains(t, out, "] "+l+"/core0.fetch: ")
	}
	code, _, errOut = runTool(append([]string{"filter", "--unit", "nosuch"}, paths...)...)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `no unit name in any of the 4 files contains "nosuch"; units are named LABEL/UNIT, the labels: a (`)

	// A bad file among them: status 1, naming it.
	bad := filepath.Join(t.TempDir(), "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, make([]byte, 100), 0o644))
	code, _, errOut = runTool("dump", paths[0], bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, bad)
}

func TestInfoListsEachFile(t *testing.T) {
	paths, labels := timelineInputs(t)
	code, out, errOut := runTool(append([]string{"info"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, len(paths), strings.Count(out, "Trace File Information\n"))
	for i, p := range paths {
		// Each file's section is its single-file info plus its label.
		_, one, _ := runTool("info", p)
		withLabel := strings.Replace(one, "File: "+p+"\n", "File: "+p+"\nLabel: "+labels[i]+"\n", 1)
		require.Contains(t, out, withLabel)
	}
}

// stats and export of several files: the merged timeline's units.
func TestStatsAndExportOfSeveralFiles(t *testing.T) {
	paths, labels := timelineInputs(t)
	code, out, errOut := runTool(append([]string{"stats"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	for _, l := range labels {
		require.Contains(t, out, "  "+l+"/core0.fetch ")
	}
	merged := filepath.Join(t.TempDir(), "m.ctrace")
	code, _, errOut = runTool(append([]string{"merge", "-o", merged}, paths...)...)
	require.Equal(t, 0, code, errOut)
	_, fromMerged, _ := runTool("stats", merged)
	require.Equal(t, fromMerged, out)

	pf := filepath.Join(t.TempDir(), "all.pftrace")
	code, stdout, errOut := runTool(append([]string{"export", "-o", pf}, paths...)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, pf+"\n", stdout)
	b, err := os.ReadFile(pf)
	require.NoError(t, err)
	for _, l := range labels {
		require.Contains(t, string(b), l)
	}
	entries, err := os.ReadDir(filepath.Dir(pf))
	require.NoError(t, err)
	require.Len(t, entries, 1, "the temporary merge is gone")
}
