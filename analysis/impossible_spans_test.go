package analysis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// A complete span whose end (begin + dur) is past the last cycle, as an
// old writer records end-start with end before start, was averaged as a
// span of 1.8e19 cycles (a mean of 9.2e18 with one good span). Stats
// leaves it out of the spans and the occupancy, counts it in the notes and
// names the first ones; a signed duration below zero is the same mistake.
func TestStatsLeavesOutCompleteSpansEndingBeforeTheyBegin(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, err := tr.NewUnit("core0.exec")
		require.NoError(t, err)
		// chronon.Span.Complete refuses these: a format of the same kind
		// writes them as an old or hostile writer would.
		exec := chronon.MustFormat3[uint32, uint64, uint64]("exec lane={} flow={} dur={}", chronon.WithName("exec"),
			chronon.WithKind(schema.KindSpanComplete, schema.RoleLane, schema.RoleFlow, schema.RoleDuration))
		signed := chronon.MustFormat1[int64]("wait dur={}", chronon.WithName("wait"),
			chronon.WithKind(schema.KindSpanComplete, schema.RoleDuration))
		exec.Emit(u, 100, 0, 1, 4)
		start, end := uint64(200), uint64(150)
		exec.Emit(u, start, 0, 2, end-start)
		signed.Emit(u, 3, -5) // would end at cycle -2
		signed.Emit(u, 300, 7)
	})
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Equal(t, uint64(2), rep.Notes["complete_spans_ending_before_they_begin"])
	byName := map[string]SpanStats{}
	for _, s := range rep.Spans {
		byName[s.Span] = s
	}
	require.Equal(t, uint64(1), byName["exec"].Count)
	require.Equal(t, 4.0, byName["exec"].Mean)
	require.Equal(t, uint64(1), byName["wait"].Count)
	require.Equal(t, uint64(7), byName["wait"].Max)
	for _, o := range rep.Occupancy {
		require.LessOrEqual(t, o.Busy, uint64(4+7), "occupancy of %s lane %q", o.Unit, o.Lane)
	}
	require.Equal(t, []ImpossibleSpan{
		{Unit: "core0.exec", Span: "wait", Cycle: 3, Dur: -5},
		{Unit: "core0.exec", Span: "exec", Cycle: 200, Dur: -50},
	}, rep.ImpossibleSpans)
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep))
	require.Contains(t, b.String(), "complete spans ending before they begin: 2")
	require.Contains(t, b.String(), "span exec on core0.exec at cycle 200, duration -50")
}
