//go:build cgo

package tracesql_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpansWindowKeepsOpenSpans: spans(cycles := 'A-B') keeps the spans
// open at A, starting at A (as export --cycles does), and drops those that
// ended before it: the window's rows are the whole table's that end at A
// or later, their start moved up to A.
func TestSpansWindowKeepsOpenSpans(t *testing.T) {
	db := open(t, []string{trace(t, "pipe")})
	var hi uint64
	fmt.Sscan(one(t, db, "SELECT max(cycle) FROM events"), &hi)
	for _, a := range []uint64{1, hi / 3, hi / 2, hi - 2} {
		want := rows(t, db, fmt.Sprintf(`SELECT unit, lane, name, greatest(start, %[1]d) AS s, "end", "end" - greatest(start, %[1]d), flow FROM spans WHERE "end" >= %[1]d ORDER BY ALL`, a))
		got := rows(t, db, fmt.Sprintf(`SELECT unit, lane, name, start, "end", dur, flow FROM spans(cycles := '%d-%d') ORDER BY ALL`, a, hi))
		require.NotEmpty(t, want)
		require.Equal(t, want, got, "window %d-%d", a, hi)
		clipped := one(t, db, fmt.Sprintf(`SELECT count(*) FROM spans WHERE start < %[1]d AND "end" >= %[1]d`, a))
		require.NotEqual(t, "0", clipped, "the window at %d cuts no span: the test shows nothing", a)
	}
}
