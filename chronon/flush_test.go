package chronon_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// WithFlush records a flush format: kind Flush, its argument the flow; a
// flush without a flow argument is refused.
func TestWithFlush(t *testing.T) {
	f, err := chronon.NewFormat2[uint32, uint64]("flush test squash x={} seq={}", chronon.WithFlush(1))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "f.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	f.Emit(u, 1, 2, 3)
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	found := false
	for _, e := range r.Formats() {
		if e.Format.Format == "flush test squash x={} seq={}" {
			found = true
			require.Equal(t, schema.KindFlush, e.Kind)
			require.Equal(t, []schema.ArgRole{schema.RolePlain, schema.RoleFlow}, e.ArgRoles)
		}
	}
	require.True(t, found)
	require.Equal(t, "flush", schema.KindFlush.String())

	_, err = chronon.NewFormat1[uint64]("flush test bad {}", chronon.WithKind(schema.KindFlush))
	require.ErrorContains(t, err, "a flush needs one argument with role flow")
	_, err = chronon.NewFormat1[uint64]("flush test range {}", chronon.WithFlush(3))
	require.Error(t, err)
	_, err = chronon.NewFormat1[uint64]("flush test kind {}", chronon.WithKind(schema.KindLast+1))
	require.ErrorContains(t, err, "unknown event kind")
}
