package chronon_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// WithDepends records a dependency argument (role Depends) beside the flow
// argument of the instruction that depends, in the appended arg_roles a
// reader reads back; a dependency without a flow, two of them, or a role
// already given are refused.
func TestWithDepends(t *testing.T) {
	const text = "depends test wake x={} seq={} on={}"
	f, err := chronon.NewFormat3[uint32, uint64, uint64](text, chronon.WithFlow(1), chronon.WithDepends(2))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "d.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	f.Emit(u, 1, 7, 3, 2)
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	found := false
	for _, e := range r.Formats() {
		if e.Format.Format == text {
			found = true
			require.Equal(t, schema.KindInstant, e.Kind)
			require.Equal(t, []schema.ArgRole{schema.RolePlain, schema.RoleFlow, schema.RoleDepends}, e.ArgRoles)
		}
	}
	require.True(t, found)
	require.Equal(t, "depends", schema.RoleDepends.String())

	_, err = chronon.NewFormat1[uint64]("depends test no flow {}", chronon.WithDepends(0))
	require.ErrorContains(t, err, "a dependency needs one argument with role flow")
	_, err = chronon.NewFormat3[uint64, uint64, uint64]("depends test two {} {} {}", chronon.WithFlow(0),
		chronon.WithKind(schema.KindInstant, schema.RolePlain, schema.RoleDepends, schema.RoleDepends))
	require.ErrorContains(t, err, "more than one argument with role depends")
	_, err = chronon.NewFormat2[uint64, uint64]("depends test same {} {}", chronon.WithFlow(0), chronon.WithDepends(0))
	require.ErrorContains(t, err, "already has role")
	_, err = chronon.NewFormat1[uint64]("depends test range {}", chronon.WithFlow(0), chronon.WithDepends(3))
	require.Error(t, err)
	_, err = chronon.NewFormat2[uint64, string]("depends test type {} {}", chronon.WithFlow(0), chronon.WithDepends(1))
	require.ErrorContains(t, err, "role depends cannot have type string")
	_, err = chronon.NewFormat1[uint64]("depends test unknown {}", chronon.WithKind(schema.KindInstant, schema.RoleLast+1))
	require.ErrorContains(t, err, "unknown argument role")
}
