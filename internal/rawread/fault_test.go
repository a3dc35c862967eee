//go:build unix

package rawread

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

func requireFault(t *testing.T, err error, path string, size int64) {
	t.Helper()
	var fe *mmapio.FaultError
	require.True(t, errors.As(err, &fe), "want a FaultError, got %v", err)
	require.Equal(t, path, fe.File)
	require.GreaterOrEqual(t, fe.Offset, int64(0), err.Error())
	require.Less(t, fe.Offset, size)
	require.Contains(t, err.Error(), path+": reading byte ")
	require.Contains(t, err.Error(), "the file shrank")
}

// Code that reads arguments aliasing the mapping (a raw block's) catches
// the fault there with CatchFault.
func TestCatchFaultForCallers(t *testing.T) {
	b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(30000, 8, 9), ctracetest.Options{BlockSize: 64 << 10})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "shrinking.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	it := r.Iter(mmapio.Query{})
	defer it.Close()
	require.True(t, it.Next())
	ev := it.Event() // its arguments point into the first block's mapped bytes
	require.NoError(t, os.Truncate(path, 0))
	read := func() (sum int, err error) {
		defer CatchFault(r, &err, PanicOnFault())
		for _, c := range ev.RawArgs() {
			sum += int(c)
		}
		return sum, nil
	}
	_, err = read()
	requireFault(t, err, path, int64(len(b)))
	require.ErrorAs(t, r.Err(), new(*mmapio.FaultError))
}
