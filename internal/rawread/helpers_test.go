package rawread

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// w1File writes a W1 trace of events over units (seed 1, no host
// metadata) in t's temporary directory and returns its path.
func w1File(t *testing.T, events, units int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w1.ctrace")
	_, err := workload.Run("w1", path, events, units, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	return path
}

// openW1 opens a W1 trace of w1File, closed when t ends.
func openW1(t *testing.T, events, units int) *mmapio.Reader {
	t.Helper()
	r, err := mmapio.Open(w1File(t, events, units))
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// evKey is what tells events apart in these tests: cycle, unit, format and
// argument bytes.
type evKey struct {
	cycle uint64
	unit  uint16
	fid   uint32
	args  string
}

func keyOf(ev mmapio.Event) evKey {
	return evKey{ev.Cycle, ev.UnitID, ev.FormatID, string(ev.RawArgs())}
}
