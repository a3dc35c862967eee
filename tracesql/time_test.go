//go:build cgo

package tracesql_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTimeColumn: a trace with a time base has a time column beside cycle,
// seconds as DOUBLE (the task simulation's cycles are picoseconds); one
// without has none.
func TestTimeColumn(t *testing.T) {
	db := open(t, []string{tasksTrace(t, "tasks")})
	require.Equal(t, "0|true", one(t, db, "SELECT count(*) FILTER (WHERE time IS NULL OR abs(time - cycle * 1e-12) > 1e-18 * cycle), max(time) > 0 FROM events"))
	require.Equal(t, "DOUBLE", one(t, db, "SELECT typeof(time) FROM events LIMIT 1"))
	w1 := open(t, []string{trace(t, "w1")})
	_, err := w1.Query("SELECT time FROM events")
	require.Error(t, err, "no time base, no time column")
}
