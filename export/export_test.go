package export

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var update = flag.Bool("update", false, "rewrite the golden export files")

func pipesimTrace(t testing.TB, n uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipe.ctrace")
	tr, err := chronon.Create(path, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	require.NoError(t, pipesim.Run(tr, n))
	require.NoError(t, tr.Close())
	return path
}

func exportFile(t testing.TB, trace string, q mmapio.Query, opts ...Option) (Result, string) {
	t.Helper()
	r, err := mmapio.Open(trace)
	require.NoError(t, err)
	defer r.Close()
	out := filepath.Join(t.TempDir(), "out.trace")
	res, err := Export(r, q, out, opts...)
	require.NoError(t, err)
	return res, out
}

// checkPipeline verifies that each instruction's flow visits the stages in
// order with exactly the latencies the simulator defines, that every slice
// lasts its stage's latency, and that the counter carries the occupancy.
func checkPipeline(t *testing.T, tr *vTrace, n uint64) {
	byFlow := map[uint64][]vEvent{}
	type open struct {
		name string
		ts   uint64
	}
	stacks := map[uint64][]open{}
	durs := map[string][]uint64{}
	var counters []vEvent
	for _, e := range tr.events {
		for _, f := range e.flows {
			byFlow[f] = append(byFlow[f], e)
		}
		switch e.typ {
		case typeSliceBegin:
			stacks[e.track] = append(stacks[e.track], open{e.name, e.ts})
		case typeSliceEnd:
			s := stacks[e.track]
			top := s[len(s)-1]
			stacks[e.track] = s[:len(s)-1]
			durs[top.name] = append(durs[top.name], e.ts-top.ts)
		case typeCounter:
			counters = append(counters, e)
		}
	}
	require.Len(t, byFlow, int(n))
	stageNames := []string{"fetch", "decode", "rename", "execute", "retire", "retired"}
	for i := uint64(0); i < n; i++ {
		evs := byFlow[i+1]
		require.Len(t, evs, len(stageNames), "flow %d", i+1)
		want := []uint64{i, i + pipesim.LatFetch, i + pipesim.LatFetch + pipesim.LatDecode}
		want = append(want, want[2]+pipesim.LatRename)
		want = append(want, want[3]+pipesim.OpOf(i).Latency())
		want = append(want, want[4]+pipesim.LatRetire)
		for k, e := range evs {
			require.Equal(t, stageNames[k], e.name, "flow %d event %d", i+1, k)
			require.Equal(t, want[k], e.ts, "flow %d %s", i+1, e.name)
		}
	}
	for _, d := range durs["fetch"] {
		require.Equal(t, uint64(pipesim.LatFetch), d)
	}
	for _, d := range durs["decode"] {
		require.Equal(t, uint64(pipesim.LatDecode), d)
	}
	require.Len(t, durs["execute"], int(n))
	require.Len(t, counters, int((n+7)/8))
	for k, c := range counters {
		require.Equal(t, float64(pipesim.InFlight(uint64(k)*8)), c.counter, "occupancy sample %d", k)
	}
}

func TestPipesimExportPerfetto(t *testing.T) {
	const n = 300
	res, out := exportFile(t, pipesimTrace(t, n), mmapio.Query{})
	require.Equal(t, []string{out}, res.Files)
	require.Equal(t, uint64(n*5), res.Spans)
	require.Zero(t, res.UnmatchedEnds+res.UnterminatedSpans)
	tr, err := validatePerfetto(out)
	require.NoError(t, err)
	checkPipeline(t, tr, n)
	// Units nest under their dotted path: core0 -> core0.fetch -> lane 0.
	paths := map[string]bool{}
	for uuid := range tr.tracks {
		paths[tr.trackPath(uuid)] = true
	}
	require.True(t, paths["core0"])
	require.True(t, paths["core0.fetch"])
	require.True(t, paths["core0.exec.lane 4"])
	require.True(t, paths["core0.rob.rob.occupancy"])
	// Arguments are typed annotations named after their placeholders.
	for _, e := range tr.events {
		if e.name == "retired" {
			require.IsType(t, uint64(0), e.args["pc"], "pc=0x{:x} is shown as a pointer (hex)")
			require.Contains(t, []any{"alu", "mul", "load"}, e.args["op"])
			break
		}
	}
}

func TestPipesimExportChromeJSON(t *testing.T) {
	const n = 200
	_, out := exportFile(t, pipesimTrace(t, n), mmapio.Query{}, WithFormat(FormatChromeJSON))
	tr, err := validateChrome(out)
	require.NoError(t, err)
	checkPipeline(t, tr, n)
}

// The pipeline's export is pinned byte for byte: a change in the mapping
// must be deliberate (go test ./export -run Golden -update).
func TestPipesimExportGolden(t *testing.T) {
	for _, c := range []struct{ format, file string }{
		{FormatPerfetto, "pipesim.pftrace"},
		{FormatChromeJSON, "pipesim.json"},
	} {
		// 40 instructions: every unit's events fit its first 4 KiB chunk,
		// so every block is sealed at Close, in unit order. With 64 one
		// unit's chunk filled during the run and was written before or
		// after the others as the writer's goroutines went (the file
		// order of blocks is not fixed), and events of one cycle on
		// several units follow the file order: the bytes pinned here
		// moved with the scheduler.
		_, out := exportFile(t, pipesimTrace(t, 40), mmapio.Query{}, WithFormat(c.format))
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		golden := filepath.Join("testdata", c.file)
		if *update {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(golden, got, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "golden file missing: run go test ./export -run Golden -update")
		require.True(t, bytes.Equal(want, got), "%s differs from the golden file", c.file)
	}
}

// A split export gives self-contained files whose events together are the
// whole trace; spans open at a cut are closed and reopened.
func TestExportSplitsIntoSelfContainedFiles(t *testing.T) {
	trace := pipesimTrace(t, 3000)
	whole, out := exportFile(t, trace, mmapio.Query{})
	wtr, err := validatePerfetto(out)
	require.NoError(t, err)
	res, _ := exportFile(t, trace, mmapio.Query{}, WithMaxFileBytes(64<<10))
	require.Greater(t, len(res.Files), 3)
	require.Equal(t, whole.Events, res.Events)
	instants, begins := 0, 0
	for _, f := range res.Files {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		require.Less(t, fi.Size(), int64(80<<10), f)
		tr, err := validatePerfetto(f)
		require.NoError(t, err, f)
		for _, e := range tr.events {
			switch e.typ {
			case typeInstant:
				instants++
			case typeSliceBegin:
				begins++
			}
		}
	}
	wantInstants := 0
	for _, e := range wtr.events {
		if e.typ == typeInstant {
			wantInstants++
		}
	}
	require.Equal(t, wantInstants, instants)
	require.GreaterOrEqual(t, begins, int(res.Spans), "every span, plus reopenings at the cuts")
}

// Complete spans that overlap without nesting on one lane go to extra rows,
// so that every slice keeps its exact start and duration.
func TestOverlappingSpansGetRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ov.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.mshr")
	require.NoError(t, err)
	sp := chronon.MustSpan("miss")
	type slice struct{ start, dur uint64 }
	want := []slice{{0, 10}, {5, 10}, {6, 2}, {12, 1}, {12, 8}, {30, 0}}
	for _, s := range want {
		sp.Complete(u, s.start, s.dur, 0, 0)
	}
	sp.Begin(u, 40, 1, 0)
	sp.End(u, 45, 1, 0)
	sp.End(u, 46, 1, 0)   // unmatched
	sp.Begin(u, 50, 2, 0) // never ended
	require.NoError(t, tr.Close())
	res, out := exportFile(t, path, mmapio.Query{})
	require.Equal(t, uint64(1), res.UnmatchedEnds)
	require.Equal(t, uint64(1), res.UnterminatedSpans)
	v, err := validatePerfetto(out)
	require.NoError(t, err)
	stacks := map[uint64][]uint64{}
	var got []slice
	for _, e := range v.events {
		switch e.typ {
		case typeSliceBegin:
			stacks[e.track] = append(stacks[e.track], e.ts)
		case typeSliceEnd:
			s := stacks[e.track]
			if v.trackPath(e.track) != "core0.mshr.lane 1" && v.trackPath(e.track) != "core0.mshr.lane 2" {
				got = append(got, slice{s[len(s)-1], e.ts - s[len(s)-1]})
			}
			stacks[e.track] = s[:len(s)-1]
		}
	}
	sort.Slice(got, func(i, j int) bool {
		return got[i].start < got[j].start || got[i].start == got[j].start && got[i].dur < got[j].dur
	})
	sort.Slice(want, func(i, j int) bool {
		return want[i].start < want[j].start || want[i].start == want[j].start && want[i].dur < want[j].dur
	})
	require.Equal(t, want, got)
}

// A cycle window and a unit filter export only what they select; spans cut
// by the window are closed at its end.
func TestExportWindowAndUnits(t *testing.T) {
	trace := pipesimTrace(t, 500)
	r, err := mmapio.Open(trace)
	require.NoError(t, err)
	units := r.UnitsNamed("core0.exec")
	require.NoError(t, r.Close())
	q := mmapio.Query{}.WithCycles(100, 199).WithUnits(units...)
	res, out := exportFile(t, trace, q)
	v, err := validatePerfetto(out)
	require.NoError(t, err)
	require.NotZero(t, res.Events)
	for _, e := range v.events {
		require.Contains(t, v.trackPath(e.track), "core0.exec")
		if e.typ != typeSliceEnd {
			require.GreaterOrEqual(t, e.ts, uint64(100))
			require.LessOrEqual(t, e.ts, uint64(199))
		}
	}
}

func TestExportOptions(t *testing.T) {
	trace := pipesimTrace(t, 10)
	r, err := mmapio.Open(trace)
	require.NoError(t, err)
	defer r.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithNsPerCycle(0), "ns per cycle"},
		{WithNsPerCycle(math.NaN()), "ns per cycle"},
		{WithNsPerCycle(2e9), "ns per cycle"},
		{WithFormat("svg"), "unknown format"},
		{WithMaxFileBytes(-1), "negative file size"},
		{WithProgress(nil), "nil progress"},
	} {
		_, err = Export(r, mmapio.Query{}, dir+"/x", c.opt)
		require.ErrorContains(t, err, c.want)
		require.NoFileExists(t, dir+"/x", "options are checked before any file is made")
	}
	_, out := exportFile(t, trace, mmapio.Query{}, WithNsPerCycle(2.5))
	v, err := validatePerfetto(out)
	require.NoError(t, err)
	var last uint64
	for _, e := range v.events {
		if e.name == "retired" {
			last = max(last, e.ts)
		}
	}
	var lastCycle uint64
	for i := uint64(0); i < 10; i++ {
		lastCycle = max(lastCycle, pipesim.RetireEnd(i))
	}
	require.Equal(t, uint64(math.Round(float64(lastCycle)*2.5)), last, "cycles scaled by 2.5 ns")
}
