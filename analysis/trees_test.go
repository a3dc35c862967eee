package analysis

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var (
	treeReq = chronon.MustAsyncSpan("req")
	treeSub = chronon.MustAsyncSpan("sub")
)

// treeTrace: a request R on cu with a tree of sub-requests on l2 and dram
// (E begun before its parent B in the same cycle), a second small request,
// a span without children, a sub-request whose parent never began, one
// never ended. Times in picoseconds.
func treeTrace(t *testing.T) *mmapio.Reader {
	return openTraceOpts(t, []chronon.Option{chronon.WithTimeBase(chronon.Picoseconds)}, func(tr *chronon.Tracer) {
		cu, _ := tr.NewUnit("cu")
		l2, _ := tr.NewUnit("l2")
		dram, _ := tr.NewUnit("dram")
		treeReq.Begin(cu, 0, 1, 0)    // R [0, 100]
		treeSub.Begin(l2, 10, 2, 1)   // A [10, 40]
		treeSub.Begin(dram, 15, 4, 2) // D [15, 35]
		treeSub.Begin(l2, 20, 5, 3)   // E [20, 25], before its parent
		treeSub.Begin(l2, 20, 3, 1)   // B [20, 90]
		treeSub.Begin(dram, 30, 6, 3) // C [30, 80]
		treeSub.End(l2, 25, 5)
		treeSub.End(dram, 35, 4)
		treeSub.End(l2, 40, 2)
		treeSub.End(dram, 80, 6)
		treeSub.End(l2, 90, 3)
		treeReq.End(cu, 100, 1)
		treeReq.Begin(cu, 200, 7, 0) // S [200, 210]
		treeSub.Begin(l2, 201, 8, 7) // [201, 205]
		treeSub.End(l2, 205, 8)
		treeReq.End(cu, 210, 7)
		treeReq.Begin(cu, 300, 9, 0) // no children: not a tree
		treeReq.End(cu, 301, 9)
		treeSub.Begin(l2, 302, 10, 99) // parent never seen
		treeSub.End(l2, 303, 10)
		treeSub.Begin(l2, 304, 11, 0) // never ended
		treeSub.End(l2, 305, 12)      // an end without a begin
	})
}

func TestStatsTrees(t *testing.T) {
	rep, err := Stats(treeTrace(t), mmapio.Query{})
	require.NoError(t, err)
	require.Len(t, rep.Trees, 1)
	tr := rep.Trees[0]
	require.Equal(t, "req", tr.Root)
	require.Equal(t, uint64(2), tr.Trees)
	require.Equal(t, uint64(6), tr.Spans.Max)
	require.Equal(t, uint64(2), tr.Spans.Min)
	require.Equal(t, []Bucket{{1, 1, 2}, {2, 3, 2}}, tr.FanOut.Histogram, "R and B have 2 children, A and S one")
	require.Equal(t, uint64(2), tr.Depth.Max)
	require.Equal(t, uint64(1), tr.Depth.Min)
	require.Equal(t, uint64(100), tr.Latency.Max)
	require.Equal(t, uint64(10), tr.Latency.Min)

	crit := map[string]uint64{}
	var total uint64
	for _, c := range tr.Critical {
		crit[c.Unit+"/"+c.Span] += c.Cycles
		total += c.Cycles
	}
	// R: 20 own, B 15, C 50, E 5, D 5, A 5; S: 6 own (200-201, 205-210), its child 4.
	require.Equal(t, map[string]uint64{"cu/req": 26, "l2/sub": 15 + 5 + 5 + 4, "dram/sub": 50 + 5}, crit)
	require.Equal(t, uint64(110), total, "the critical paths add up to the latencies")
	require.Equal(t, "dram", tr.Critical[0].Unit, "largest first")
	require.InDelta(t, 55.0/110, tr.Critical[0].Share, 1e-12)

	require.Equal(t, []PathStep{
		{"cu", "req", 0, 10}, {"l2", "sub", 10, 15}, {"dram", "sub", 15, 20}, {"l2", "sub", 20, 25},
		{"l2", "sub", 25, 30}, {"dram", "sub", 30, 80}, {"l2", "sub", 80, 90}, {"cu", "req", 90, 100},
	}, tr.Slowest)

	require.Equal(t, uint64(1), rep.Notes["parents_not_found"])
	require.Equal(t, uint64(1), rep.Notes["unmatched_span_ends"])
	require.Equal(t, uint64(1), rep.Notes["spans_open_at_end"])
	spans := map[string]SpanStats{}
	for _, s := range rep.Spans {
		spans[s.Unit+"/"+s.Span] = s
	}
	require.Equal(t, uint64(3), spans["cu/req"].Count, "async spans' durations")
	require.Equal(t, uint64(100), spans["cu/req"].Max)
	require.Equal(t, uint64(70), spans["l2/sub"].Max)

	// Time: the window in seconds, rates per second of simulated time.
	require.Equal(t, "1 ps", rep.Window.TimeBase)
	require.InDelta(t, 306e-12, rep.Window.Seconds, 1e-20)
	for _, u := range rep.Units {
		require.InDelta(t, float64(u.Events)/306e-12, u.PerSecond, 1)
	}

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	out := text.String()
	require.Contains(t, out, "Window: cycles 0 - 305 (306 cycles of 1 ps: 0.306 ns), 22 events")
	require.Contains(t, out, "Trees of req (2 requests with sub-requests, 1 more without: spans linked by parent ids)")
	require.Contains(t, out, "per second")
	// The columns are headed "ps", no longer "cycles": narrower.
	for _, l := range []string{"  dram  sub   55  50.00%\n", "  cu    req      0   10  10\n", "  fan-out       4    1   1.50    1    2    2\n"} {
		require.Contains(t, out, l)
	}
	// Akita finding: in a picosecond trace the durations, occupancy,
	// critical path and rates were in picoseconds but labelled cycles.
	for _, l := range []string{"Spans (duration in ps)\n", "Occupancy (ps with a span open / window)\n", "  unit  lane  busy ps  occupancy\n",
		"  unit  span  ps   share\n", "  unit  span  from   to  ps\n", "per 1k ps  per second"} {
		require.Contains(t, out, l)
	}
	require.NotContains(t, out, "duration in cycles")
	require.NotContains(t, out, "per 1k cycles")
	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, rep))
	var back Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, rep.Trees, back.Trees)
}

// A trace without time base, ids or parents reports as before: no time,
// no trees, no rate column.
func TestStatsWithoutTimeOrTrees(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, _ := tr.NewUnit("u")
		f := chronon.MustFormat1[uint64]("plain {}")
		f.Emit(u, 1, 1)
		f.Emit(u, 5, 1)
	})
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Empty(t, rep.Trees)
	require.Zero(t, rep.Window.Seconds)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	require.True(t, strings.HasPrefix(text.String(), "Window: cycles 1 - 5 (5 cycles), 2 events\n"))
	require.NotContains(t, text.String(), "per second")
	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, rep))
	require.NotContains(t, js.String(), "time_base")
	require.NotContains(t, js.String(), "trees")
}

// Ticks are labelled with the time base's unit only when they are time: a
// clock's cycles (2 GHz, 500 ps), or a unit with a clock of its own beside
// the file's picoseconds, keep "cycles".
func TestStatsTextTickLabels(t *testing.T) {
	write := func(tr *chronon.Tracer, own bool) {
		cu, _ := tr.NewUnit("cu")
		l2, _ := tr.NewUnit("l2")
		if own {
			require.NoError(t, l2.SetTimeBase(chronon.Hz(1_000_000_000)))
		}
		treeReq.Begin(cu, 0, 1, 0)
		treeSub.Begin(l2, 10, 2, 1)
		treeSub.End(l2, 40, 2)
		treeReq.End(cu, 100, 1)
	}
	text := func(r *mmapio.Reader) string {
		rep, err := Stats(r, mmapio.Query{})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, rep))
		return b.String()
	}
	ps := text(openTraceOpts(t, []chronon.Option{chronon.WithTimeBase(chronon.Picoseconds)}, func(tr *chronon.Tracer) { write(tr, false) }))
	require.Contains(t, ps, "Spans (duration in ps)")
	clock := text(openTraceOpts(t, []chronon.Option{chronon.WithTimeBase(chronon.Hz(2_000_000_000))}, func(tr *chronon.Tracer) { write(tr, false) }))
	require.Contains(t, clock, "cycles of 500 ps")
	require.Contains(t, clock, "Spans (duration in cycles)")
	require.Contains(t, clock, "per 1k cycles")
	mixed := text(openTraceOpts(t, []chronon.Option{chronon.WithTimeBase(chronon.Picoseconds)}, func(tr *chronon.Tracer) { write(tr, true) }))
	require.Contains(t, mixed, "Spans (duration in cycles)")
	require.NotContains(t, mixed, " ps ")
}
