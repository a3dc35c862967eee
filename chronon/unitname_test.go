package chronon

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Units are selected and printed by name: an empty one (twice, even) was
// accepted and then unreachable by --unit.
func TestUnitNeedsAName(t *testing.T) {
	tr, err := Create(filepath.Join(t.TempDir(), "noname.ctrace"))
	require.NoError(t, err)
	defer tr.Close()
	_, err = tr.NewUnit("")
	require.ErrorContains(t, err, "needs a name")
}
