//go:build cgo

package tracesql_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// A complete span whose end is before its begin (end-start stored with
// end < start, as an old writer did: chronon.Span.Complete refuses it, a
// format of the same kind does not) was a row of spans with a dur of
// 1.8e19, which sum(dur) and avg(dur) took in. spans leaves it out, and the
// database counts it and names the first.
func TestSpansLeaveOutCompleteSpansEndingBeforeTheyBegin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "impossible.ctrace")
	require.NoError(t, ctracetest.WriteImpossibleSpans(path))

	db := open(t, []string{path})
	n, first := db.ImpossibleSpans()
	require.Zero(t, n)
	require.Empty(t, first)
	require.Equal(t, "2|10|216", one(t, db, `SELECT count(*), sum(dur), max("end") FROM spans`))
	n, first = db.ImpossibleSpans()
	require.Equal(t, int64(1), n)
	require.Equal(t, "span exec on core0.exec at cycle 200, duration -50", first)
	require.Equal(t, "2|5", one(t, db, `SELECT count(*), avg(dur) FROM spans(cycles := '100-300')`))
	require.Equal(t, "2|10", one(t, db, `SELECT count(*), sum(dur) FROM exec`), "the span's table")
	require.Equal(t, "3", one(t, db, `SELECT count(*) FROM events`), "the events are all there")
}
