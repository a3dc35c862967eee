//go:build cgo

package tracesql_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/tracesql"
)

var bracketEv = chronon.MustFormat1[uint64]("bev n={}")

// bracketTrace writes a trace whose unit names have brackets, as
// simulators name array elements: each unit i emits i+1 events.
func bracketTrace(t *testing.T, names ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "brackets.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	for i, n := range names {
		u, err := tr.NewUnit(n)
		require.NoError(t, err)
		for c := range uint64(i + 1) {
			bracketEv.Emit(u, c, c)
		}
	}
	require.NoError(t, tr.Close())
	return path
}

// TestUnitAsWritten: WithUnit and the tables' unit parameter take
// trace_reader --unit's forms: a name with brackets finds the units that
// contain it (it used to be refused by trace_reader sql, and matched as a
// plain substring here only), =NAME is exact, a pattern matches whole, a
// backslash escapes.
func TestUnitAsWritten(t *testing.T) {
	path := bracketTrace(t, "ROB[0].Top.incoming", "ROB[0].Top.outgoing", "ROB0", "core1.fetch")
	db := open(t, []string{path})
	for _, c := range []struct {
		unit string
		want []string
	}{
		{"ROB[0]", []string{"ROB0|3", "ROB[0].Top.incoming|1", "ROB[0].Top.outgoing|2"}},
		{"=ROB[0].Top.incoming", []string{"ROB[0].Top.incoming|1"}},
		{`ROB\[0\].Top.out`, []string{"ROB[0].Top.outgoing|2"}},
		{"ROB*", []string{"ROB0|3", "ROB[0].Top.incoming|1", "ROB[0].Top.outgoing|2"}},
		{`core\1.fetch`, []string{"core1.fetch|4"}},
	} {
		q := "SELECT unit, count(*) FROM events(unit := '" + c.unit + "') GROUP BY unit ORDER BY unit"
		require.Equal(t, c.want, rows(t, db, q), c.unit)
		dbu := open(t, []string{path}, tracesql.WithUnit(c.unit))
		require.Equal(t, c.want, rows(t, dbu, "SELECT unit, count(*) FROM events GROUP BY unit ORDER BY unit"), "WithUnit(%q)", c.unit)
	}
	_, err := db.Query("SELECT * FROM events(unit := '=ROB[0]')")
	require.ErrorContains(t, err, `no unit name is "ROB[0]"`)
	_, err = db.Query("SELECT * FROM events(unit := 'ROB[0')")
	require.ErrorContains(t, err, "syntax error in pattern")
	_, err = tracesql.Open([]string{path}, tracesql.WithUnit("ROB[0"))
	require.ErrorContains(t, err, "syntax error in pattern")
}
