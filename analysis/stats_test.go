package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/mmapio"
)

func openTrace(t *testing.T, write func(tr *chronon.Tracer)) *mmapio.Reader {
	t.Helper()
	return openTraceOpts(t, nil, write)
}

func openTraceOpts(t *testing.T, opts []chronon.Option, write func(tr *chronon.Tracer)) *mmapio.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.ctrace")
	tr, err := chronon.Create(path, append([]chronon.Option{chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false)}, opts...)...)
	require.NoError(t, err)
	write(tr)
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func dist(n uint64, vals ...uint64) Dist { // helper: exact distribution of equal values
	return Dist{Count: n, Min: vals[0], Max: vals[0], Mean: float64(vals[0]), P50: vals[0], P99: vals[0]}
}

// stats on the pipeline's trace reports exactly the stage latencies the
// simulator defines.
func TestStatsReportsPipelineLatencies(t *testing.T) {
	const n = 1000
	r := openTrace(t, func(tr *chronon.Tracer) { require.NoError(t, pipesim.Run(tr, n)) })
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Len(t, rep.Stages, 4)
	want := []struct {
		from, to string
		lat      uint64
	}{
		{"core0.fetch", "core0.decode", pipesim.LatFetch},
		{"core0.decode", "core0.rename", pipesim.LatDecode},
		{"core0.rename", "core0.exec", pipesim.LatRename},
	}
	for i, w := range want {
		s := rep.Stages[i]
		require.Equal(t, w.from, s.From)
		require.Equal(t, w.to, s.To)
		got := s.Dist
		got.Histogram = nil
		require.Equal(t, dist(n, w.lat), got, "%s -> %s", w.from, w.to)
	}
	ex := rep.Stages[3]
	require.Equal(t, "core0.exec", ex.From)
	require.Equal(t, "core0.retire", ex.To)
	require.Equal(t, uint64(n), ex.Count)
	require.Equal(t, uint64(pipesim.LatALU), ex.Min)
	require.Equal(t, uint64(pipesim.LatLoad), ex.Max)
	require.Equal(t, uint64(pipesim.LatALU), ex.P50, "3 of 5 operations are ALU")
	require.Equal(t, uint64(pipesim.LatLoad), ex.P99)
	require.InDelta(t, float64(3*pipesim.LatALU+pipesim.LatMUL+pipesim.LatLoad)/5, ex.Mean, 1e-9)
	require.Equal(t, []Bucket{{1, 1, 3 * n / 5}, {2, 3, n / 5}, {4, 7, n / 5}}, ex.Histogram)

	spans := map[string]SpanStats{}
	for _, s := range rep.Spans {
		spans[s.Unit+"/"+s.Span] = s
	}
	require.Equal(t, uint64(pipesim.LatDecode), spans["core0.decode/decode"].Max)
	require.Equal(t, uint64(n), spans["core0.exec/execute"].Count)
	require.Equal(t, uint64(pipesim.LatLoad), spans["core0.exec/execute"].Max)

	// The fetch stage holds an instruction every cycle from 0 to n.
	occ := map[string]OccupancyStats{}
	for _, o := range rep.Occupancy {
		occ[o.Unit+"/"+o.Lane] = o
	}
	require.Equal(t, uint64(n), occ["core0.fetch/"].Busy)
	require.Equal(t, uint64(n), occ["core0.fetch/0"].Busy)
	// Decode holds instruction i during [i+1, i+3): the unit is busy from 1
	// to n+2; lane 0 (even i) from 1 to n+1, lane 1 (odd i) from 2 to n+2.
	require.Equal(t, uint64(n+pipesim.LatDecode-1), occ["core0.decode/"].Busy)
	require.Equal(t, uint64(n), occ["core0.decode/0"].Busy)
	require.Equal(t, uint64(n), occ["core0.decode/1"].Busy)
	require.InDelta(t, float64(n)/float64(rep.Window.Cycles), occ["core0.fetch/"].Occupancy, 1e-12)

	units := map[string]UnitStats{}
	for _, u := range rep.Units {
		units[u.Name] = u
	}
	require.Equal(t, uint64(n), units["core0.fetch"].Events)
	require.Equal(t, uint64(2*n), units["core0.retire"].Events, "span + retired instant")
	require.Equal(t, uint64(n/8), units["core0.rob"].Events)
	require.Equal(t, uint64(0), rep.Window.Start)
	require.Equal(t, uint64(n*1000)/rep.Window.Cycles, uint64(units["core0.fetch"].PerKCycles))
}

func TestStatsBeginEndSpansAndWindow(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, err := tr.NewUnit("mem.ctrl")
		require.NoError(t, err)
		sp := chronon.MustSpan("req")
		sp.Begin(u, 10, 0, 0)
		sp.Begin(u, 12, 1, 0)
		sp.End(u, 20, 0, 0) // lane 0: 10..20
		sp.End(u, 30, 1, 0) // lane 1: 12..30
		sp.End(u, 31, 1, 0) // unmatched
		sp.Begin(u, 40, 0, 0)
		sp.End(u, 45, 0, 0) // lane 0: 40..45
		sp.Begin(u, 90, 0, 0)
	})
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Equal(t, uint64(1), rep.Notes["unmatched_span_ends"])
	require.Equal(t, uint64(1), rep.Notes["spans_open_at_end"])
	s := rep.Spans[0]
	require.Equal(t, uint64(3), s.Count)
	require.Equal(t, uint64(5), s.Min)
	require.Equal(t, uint64(18), s.Max)
	occ := map[string]uint64{}
	for _, o := range rep.Occupancy {
		occ[o.Lane] = o.Busy
	}
	// Window 10..90; unit busy 10..30, 40..45, 90..91 (open at the end).
	require.Equal(t, uint64(20+5+1), occ[""])
	require.Equal(t, uint64(10+5+1), occ["0"])
	require.Equal(t, uint64(18), occ["1"])

	rep, err = Stats(r, mmapio.Query{}.WithCycles(0, 25))
	require.NoError(t, err)
	require.Equal(t, Window{Start: 0, End: 25, Cycles: 26}, rep.Window)
	require.Equal(t, uint64(3), rep.Events)
}

func TestStatsText(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) { require.NoError(t, pipesim.Run(tr, 100)) })
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep))
	out := b.String()
	require.Contains(t, out, "Window: cycles 0 - ")
	require.Regexp(t, `core0\.fetch\s+core0\.decode\s+100\s+1\s+1\.00\s+1\s+1\s+1`, out)
	require.Regexp(t, `core0\.exec\s+core0\.retire\s+100\s+1\s+2\.20\s+1\s+5\s+5`, out)
	var j strings.Builder
	require.NoError(t, WriteJSON(&j, rep))
	require.Contains(t, j.String(), `"from": "core0.fetch"`)
}

// Rates count what the file holds: a trace whose writer dropped events says
// so in the notes.
func TestStatsNoteWriterDrops(t *testing.T) {
	b, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(2000, 4, 1),
		ctracetest.Options{BlockSize: 8192, PerUnit: true, UnitStats: true, Dropped: map[uint16]uint64{2: 17, 3: 5}})
	require.NoError(t, err)
	r, err := mmapio.OpenBytes("drops.ctrace", b)
	require.NoError(t, err)
	defer r.Close()
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Equal(t, uint64(22), rep.Notes["events_dropped_by_the_writer_in_the_file"])

	b, err = ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(2000, 4, 1),
		ctracetest.Options{BlockSize: 8192, PerUnit: true, UnitStats: true})
	require.NoError(t, err)
	r2, err := mmapio.OpenBytes("nodrops.ctrace", b)
	require.NoError(t, err)
	defer r2.Close()
	rep, err = Stats(r2, mmapio.Query{})
	require.NoError(t, err)
	require.NotContains(t, rep.Notes, "events_dropped_by_the_writer_in_the_file")
}
