package chronon_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/unitsel"
)

// trace_reader finds a recorded selection under unitsel.Key and matches
// its units= patterns with unitsel: they must be the writer's.
func TestUnitselAgreesWithTheWriter(t *testing.T) {
	require.Equal(t, chronon.MetadataSelect, unitsel.Key)
	names := []string{"core0.fetch", "core1.fetch", "core1.l2", "rank0/core1.l2", "core1"}
	for _, sel := range []string{"units=core1", "units=core1.*,core0.l2", "units=*/core1.*", "units=core[01].f*"} {
		patterns, ok := unitsel.Patterns(sel)
		require.True(t, ok)
		tr, err := chronon.Create(t.TempDir()+"/s.ctrace", chronon.WithAutoMetadata(false), chronon.WithSelect(sel))
		require.NoError(t, err)
		for _, n := range names {
			u, err := tr.NewUnit(n)
			require.NoError(t, err)
			require.Equal(t, unitsel.Any(patterns, n), u.Enabled(chronon.CategoryDefault), "%s %s", sel, n)
		}
		require.NoError(t, tr.Close())
	}
}
