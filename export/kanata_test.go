package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/mmapio"
)

func hazardTrace(t testing.TB, n uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hazards.ctrace")
	tr, err := chronon.Create(path, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	require.NoError(t, pipesim.RunHazards(tr, n))
	require.NoError(t, tr.Close())
	return path
}

// exportKanataLog exports trace to Kanata and validates the log.
func exportKanataLog(t *testing.T, trace string, q mmapio.Query) (Result, []byte, *kLog) {
	t.Helper()
	res, out := exportFile(t, trace, q, WithFormat(FormatKanata))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lg, err := validateKanata(data)
	require.NoError(t, err)
	return res, data, lg
}

// The pipeline's Kanata logs are pinned byte for byte (go test ./export
// -run Golden -update), with and without hazards.
func TestKanataGolden(t *testing.T) {
	for _, c := range []struct {
		trace, file string
	}{
		{pipesimTrace(t, 24), "pipesim.kanata"},
		{hazardTrace(t, 40), "pipesim_hazards.kanata"},
	} {
		_, got, _ := exportKanataLog(t, c.trace, mmapio.Query{})
		golden := filepath.Join("testdata", "kanata", c.file)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, got, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "golden file missing: run go test ./export -run Golden -update")
		require.True(t, bytes.Equal(want, got), "%s differs from the golden file", c.file)
	}
}

// Every instruction of the plain pipeline shows its five stages with the
// simulator's latencies and retires at the end of its retire stage.
func TestKanataPipesimStages(t *testing.T) {
	const n = 300
	res, _, lg := exportKanataLog(t, pipesimTrace(t, n), mmapio.Query{})
	require.Len(t, lg.insts, n)
	require.Equal(t, uint64(n), res.Instructions)
	require.Equal(t, uint64(n), res.Retired)
	for i, in := range lg.insts {
		seq := uint64(i)
		require.Equal(t, seq+1, in.sim, "I ids follow the first appearance")
		require.True(t, in.retired)
		require.Equal(t, pipesim.RetireEnd(seq), in.end, "instruction %d retires at its last stage end", i)
		want := []kLogStage{
			{0, "fetch", seq, seq + 1},
			{0, "decode", seq + 1, seq + 3},
			{0, "rename", seq + 3, seq + 4},
			{0, "execute", seq + 4, seq + 4 + pipesim.OpOf(seq).Latency()},
			{0, "retire", seq + 4 + pipesim.OpOf(seq).Latency(), pipesim.RetireEnd(seq)},
		}
		require.Equal(t, want, in.stages, "instruction %d", i)
		require.True(t, strings.HasPrefix(in.label, "fetch lane=0 flow="), in.label)
		require.Contains(t, in.detail, `\n`)
		require.Contains(t, in.detail, "core0.retire: retired seq=")
	}
}

// With hazards: the instruction after each load stalls on lane 1 until the
// load leaves execute, wrong-path instructions are flushed at their
// branch's resolution with their stages cut there, and the rest retire.
func TestKanataPipesimHazards(t *testing.T) {
	const n = 200
	res, _, lg := exportKanataLog(t, hazardTrace(t, n), mmapio.Query{})
	require.Len(t, lg.insts, n)
	var flushed, stalls uint64
	for i, in := range lg.insts {
		seq := uint64(i)
		require.Equal(t, "fetch seq="+itoa(seq+1)+" pc=0x"+hex(0x1000+4*seq)+" op="+pipesim.HazardOp(seq), in.label)
		squash, wrong := pipesim.SquashCycle(seq)
		require.Equal(t, wrong, in.flush, "instruction %d", i)
		if wrong {
			flushed++
			require.Equal(t, squash, in.end)
			for _, s := range in.stages {
				require.LessOrEqual(t, s.end, squash, "stage %s of %d cut at the squash", s.name, i)
			}
			require.Contains(t, in.detail, "squash seq="+itoa(seq+1))
		}
		for _, s := range in.stages {
			if s.lane == 1 {
				require.Equal(t, "stall", s.name)
				require.Equal(t, seq+4, s.start, "instruction %d stalls after rename", i)
				if !wrong {
					require.Equal(t, seq+8, s.end, "until the load before it leaves execute")
				}
				stalls++
			} else {
				require.NotEqual(t, "stall", s.name)
			}
		}
		if seq%5 == 4 {
			require.True(t, hasLane(in, 1), "instruction %d after a load stalls", i)
		}
	}
	require.Equal(t, uint64(20), flushed) // 2 of every 20 slots
	require.Equal(t, flushed, res.Flushed)
	require.Equal(t, uint64(n)-flushed, res.Retired)
	require.Equal(t, uint64(n/5), stalls)
}

func hasLane(in *kLogInst, lane uint64) bool {
	for _, s := range in.stages {
		if s.lane == lane {
			return true
		}
	}
	return false
}

// A cycle window: the instructions seen in it, those still in flight at
// its end closed there, the log valid.
func TestKanataWindow(t *testing.T) {
	trace := hazardTrace(t, 400)
	res, _, lg := exportKanataLog(t, trace, mmapio.Query{}.WithCycles(100, 150))
	require.NotZero(t, res.Instructions)
	require.Equal(t, res.Instructions, res.Retired+res.Flushed)
	require.Equal(t, uint64(150), lg.last, "closed at the window's last cycle")
	require.GreaterOrEqual(t, lg.first, uint64(100))
	open := 0
	for _, in := range lg.insts {
		for _, s := range in.stages {
			require.GreaterOrEqual(t, s.start, uint64(100))
			require.LessOrEqual(t, s.end, uint64(150))
		}
		if in.end == 150 {
			open++
		}
	}
	require.NotZero(t, open, "some instructions are in flight at the window's end")
	require.NotZero(t, res.UnterminatedSpans)
}

// A trace without flows or spans is refused, naming the file and what is
// missing; nothing is written.
func TestKanataNeedsFlowsAndSpans(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name    string
		emit    func(u *chronon.Unit)
		missing string
	}{
		{"nothing", func(u *chronon.Unit) { kPlain.Emit(u, 1, 7) }, "neither flows nor spans"},
		{"spans", func(u *chronon.Unit) { kSpan.Complete(u, 1, 2, 0, 0) }, "spans but no flows"},
		{"flows", func(u *chronon.Unit) { kFlowed.Emit(u, 1, 5) }, "flows but no spans"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".ctrace")
		tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		u, err := tr.NewUnit("core0.x")
		require.NoError(t, err)
		c.emit(u)
		require.NoError(t, tr.Close())
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		out := filepath.Join(dir, c.name+".kanata")
		_, err = Export(r, mmapio.Query{}, out, WithFormat(FormatKanata))
		r.Close()
		require.Error(t, err)
		require.Contains(t, err.Error(), path)
		require.Contains(t, err.Error(), c.missing)
		require.Contains(t, err.Error(), "flows")
		require.Contains(t, err.Error(), "spans")
		_, statErr := os.Stat(out)
		require.True(t, os.IsNotExist(statErr), "no output for a refused trace")
	}
}

var (
	kPlain  = chronon.MustFormat1[uint64]("kanata test plain {}")
	kSpan   = chronon.MustSpan("kanata test stage")
	kFlowed = chronon.MustFormat1[uint64]("kanata test flowed seq={}", chronon.WithFlow(0))
)

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
func hex(v uint64) string  { return strconv.FormatUint(v, 16) }

var kAsync = chronon.MustAsyncSpan("kanata test task")

// A trace whose only spans are async spans (begun and ended by an id) is
// refused saying it has them and that they are not the stages Kanata
// needs, not that it has no spans.
func TestKanataSaysAsyncSpansAreNotStages(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		emit func(u *chronon.Unit)
		has  string
	}{
		{"async", func(u *chronon.Unit) { kAsync.Begin(u, 1, 9, 0); kAsync.End(u, 4, 9) },
			"the events selected have async spans (begun and ended by an id) but no flows and no lane spans"},
		{"async-flows", func(u *chronon.Unit) { kAsync.Begin(u, 1, 9, 0); kFlowed.Emit(u, 2, 5); kAsync.End(u, 4, 9) },
			"the events selected have flows and async spans (begun and ended by an id) but no lane spans on the flows"},
	} {
		path := filepath.Join(dir, c.name+".ctrace")
		tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		u, err := tr.NewUnit("gpu.l2")
		require.NoError(t, err)
		c.emit(u)
		require.NoError(t, tr.Close())
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		_, err = Export(r, mmapio.Query{}, filepath.Join(dir, c.name+".kanata"), WithFormat(FormatKanata))
		r.Close()
		require.Error(t, err, c.name)
		msg := err.Error()
		require.Contains(t, msg, path)
		require.Contains(t, msg, c.has)
		require.NotContains(t, msg, "neither flows nor spans")
		require.Contains(t, msg, "async spans are not stages")
		require.Contains(t, msg, "needs flows (an argument with the flow role naming the instruction) and lane spans on them")
	}
}
