package analysis

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// A window keeps the spans open at its start, beginning there, as the
// exports and SQL's spans table do: their ends match, their children's
// parents are found, and their durations are what the window shows.
func TestStatsWindowKeepsSpansOpenAtItsStart(t *testing.T) {
	rep, err := Stats(treeTrace(t), mmapio.Query{}.WithCycles(22, 95))
	require.NoError(t, err)
	require.Zero(t, rep.Notes["unmatched_span_ends"], "%v", rep.Notes)
	require.Zero(t, rep.Notes["parents_not_found"], "%v", rep.Notes)
	require.Equal(t, uint64(1), rep.Notes["spans_open_at_end"], "R, 0-100") // its end is after the window
	durs := map[string][]uint64{}
	for _, s := range rep.Spans {
		durs[s.Unit+"/"+s.Span] = append(durs[s.Unit+"/"+s.Span], s.Count, s.Min, s.Max)
	}
	require.Equal(t, map[string][]uint64{
		"l2/sub":   {3, 3, 68},  // E 22-25, A 22-40, B 22-90
		"dram/sub": {2, 13, 50}, // D 22-35, C 30-80
	}, durs)
	require.Len(t, rep.Trees, 1)
	tree := rep.Trees[0]
	require.Equal(t, "req", tree.Root)
	require.Equal(t, uint64(1), tree.Trees)
	require.Equal(t, uint64(6), tree.Spans.Max, "R and its five descendants, begun before the window")
	require.Equal(t, uint64(95+1-22), tree.Latency.Max, "R from the window's start to its end")

	// Lane spans and complete spans across the start.
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, err := tr.NewUnit("u")
		require.NoError(t, err)
		sp, done := chronon.MustSpan("op"), chronon.MustSpan("done")
		sp.Begin(u, 10, 0, 0)
		sp.Begin(u, 12, 1, 0)
		sp.End(u, 14, 1, 0)           // ended before the window: not counted
		done.Complete(u, 5, 20, 0, 0) // 5-25
		done.Complete(u, 6, 3, 0, 0)  // 6-9: before the window
		sp.End(u, 30, 0, 0)           // 10-30
	})
	rep, err = Stats(r, mmapio.Query{}.WithCycles(20, 40))
	require.NoError(t, err)
	require.Zero(t, rep.Notes["unmatched_span_ends"], "%v", rep.Notes)
	require.Zero(t, rep.Notes["spans_open_at_end"], "%v", rep.Notes)
	got := map[string][]uint64{}
	for _, s := range rep.Spans {
		got[s.Span] = []uint64{s.Count, s.Min, s.Max}
	}
	require.Equal(t, map[string][]uint64{"op": {1, 10, 10}, "done": {1, 5, 5}}, got)
	require.Equal(t, uint64(1), rep.Events, "the end at 30: the lookback counts no event")
	for _, o := range rep.Occupancy {
		if o.Lane == "" {
			require.Equal(t, uint64(10), o.Busy, "busy from the window's start, 20, to 30")
		}
	}
}
