package mmapio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// A file that shrinks while Rewrite checks its blocks (`trace_reader
// recover`) fails the rewrite with the *FaultError naming it. With
// WithRepair, the faulted blocks used to be "left out" as damaged ones
// (thousands of lines) and a partial copy reported complete.
func TestRewriteOfAShrinkingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.ctrace")
	b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(100_000, 8, 2), ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: true})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	for _, opts := range [][]Option{nil, {WithRepair()}} {
		require.NoError(t, os.WriteFile(p, b, 0o644))
		r := openT(t, p, opts...)
		require.NotEmpty(t, r.Blocks())                           // the table is decoded: only the blocks' data is cut
		require.NoError(t, os.Truncate(p, int64(len(b)/2)&^4095)) // a page boundary: every read past it faults
		var out bytes.Buffer
		rw, err := r.Rewrite(&out, time.Time{})
		var fe *FaultError
		require.True(t, errors.As(err, &fe), "repair %v: %v (%d dropped)", opts != nil, err, len(rw.Dropped))
		require.Equal(t, p, fe.File)
		require.NoError(t, r.Close())
	}
}
