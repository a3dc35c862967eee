package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// impossibleSpansTrace writes complete spans of an instruction, one of
// them ending before it begins (end-start stored with end < start, as an
// old writer did; chronon.Span.Complete refuses it, a format of the same
// kind does not).
func impossibleSpansTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "impossible.ctrace")
	require.NoError(t, ctracetest.WriteImpossibleSpans(path))
	return path
}

// A complete span whose end is before its begin made a slice of 1.8e19
// cycles (Perfetto) and a stage that never ends (Kanata). The exports
// leave it out, count it and name the first.
func TestExportsLeaveOutCompleteSpansEndingBeforeTheyBegin(t *testing.T) {
	trace := impossibleSpansTrace(t)
	res, out := exportFile(t, trace, mmapio.Query{})
	require.Equal(t, uint64(1), res.ImpossibleSpans)
	require.Equal(t, "span exec on core0.exec at cycle 200, duration -50", res.FirstImpossibleSpan)
	require.Equal(t, uint64(2), res.Spans)
	v, err := validatePerfetto(out)
	require.NoError(t, err)
	var last uint64
	for _, e := range v.events {
		last = max(last, e.ts)
	}
	require.Equal(t, uint64(216), last, "the export ends with the last real span")

	res, out = exportFile(t, trace, mmapio.Query{}.WithCycles(150, 300)) // the lookback reads it too
	require.Equal(t, uint64(1), res.ImpossibleSpans)
	v, err = validatePerfetto(out)
	require.NoError(t, err)
	for _, e := range v.events {
		require.LessOrEqual(t, e.ts, uint64(300))
	}

	res, data, lg := exportKanataLog(t, trace, mmapio.Query{})
	require.Equal(t, uint64(1), res.ImpossibleSpans)
	require.Equal(t, "span exec on core0.exec at cycle 200, duration -50", res.FirstImpossibleSpan)
	require.Len(t, lg.insts, 3, "%s", data)
	stages := 0
	for _, in := range lg.insts {
		for _, st := range in.stages {
			require.LessOrEqual(t, st.end, uint64(216), "%s", data)
			stages++
		}
	}
	require.Equal(t, 2, stages, "%s", data)
	require.LessOrEqual(t, lg.last, uint64(216), "%s", data)
	_ = os.Remove(out)
}
