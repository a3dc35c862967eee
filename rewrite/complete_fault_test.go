package rewrite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// A file that shrinks while Complete checks its blocks (`trace_reader
// recover`) fails it with the *mmapio.FaultError naming it. With
// WithRepair, the faulted blocks used to be "left out" as damaged ones
// (thousands of lines) and a partial copy reported complete.
func TestCompleteOfAShrinkingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.ctrace")
	b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(100_000, 8, 2), ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: true})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	for _, opts := range [][]mmapio.Option{nil, {mmapio.WithRepair()}} {
		require.NoError(t, os.WriteFile(p, b, 0o644))
		r := openT(t, p, opts...)
		require.NotEmpty(t, r.Blocks())                           // the table is decoded: only the blocks' data is cut
		require.NoError(t, os.Truncate(p, int64(len(b)/2)&^4095)) // a page boundary: every read past it faults
		var out bytes.Buffer
		rw, err := Complete(&out, r, time.Time{})
		var fe *mmapio.FaultError
		require.True(t, errors.As(err, &fe), "repair %v: %v (%d dropped)", opts != nil, err, len(rw.Dropped))
		require.Equal(t, p, fe.File)
		require.NoError(t, r.Close())
	}
}

// A trace that shrinks after it was opened gives Complete a *FaultError
// naming the file and a byte of it, whatever its layout.
func TestCompleteFaultsOnAShrunkFile(t *testing.T) {
	for name, opts := range map[string]ctracetest.Options{
		"raw":        {BlockSize: 4096, PerUnit: true},
		"compressed": {BlockSize: 4096, PerUnit: true, Compress: true},
		"original":   {BlockSize: 4096, Compress: true, NoUnitSets: true},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(30000, 8, 9), opts)
			require.NoError(t, err)
			require.Greater(t, len(b), 64<<10)
			for _, keep := range []int64{0, 4096} {
				path := filepath.Join(t.TempDir(), "shrinking.ctrace")
				require.NoError(t, os.WriteFile(path, b, 0o644))
				r, err := mmapio.Open(path)
				require.NoError(t, err)
				require.NoError(t, os.Truncate(path, keep))
				_, err = Complete(&bytes.Buffer{}, r, testTime)
				var fe *mmapio.FaultError
				require.True(t, errors.As(err, &fe), "want a FaultError, got %v", err)
				require.Equal(t, path, fe.File)
				require.GreaterOrEqual(t, fe.Offset, int64(0), err.Error())
				require.Less(t, fe.Offset, int64(len(b)))
				require.Contains(t, err.Error(), path+": reading byte ")
				require.Contains(t, err.Error(), "the file shrank")
				require.NoError(t, r.Close())
			}
		})
	}
}
