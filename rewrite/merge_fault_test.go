package rewrite

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// An input that shrinks after it was opened (its footer and blocks cut
// away) ends the merge with a *mmapio.FaultError naming it, not a SIGBUS that
// kills the process, whichever input it is and whatever the number of
// workers: the block table and the blocks are read under the fault guard
// in every goroutine of the merge (the writer's, the feeder's, the
// workers').
func TestMergeOfAShrinkingInput(t *testing.T) {
	raw := ctracetest.Options{BlockSize: 16 << 10, PerUnit: true}
	for victim := range 3 {
		for _, workers := range []int{1, 3} {
			paths := rankFiles(t, t.TempDir(), 3, 30_000, raw)
			m, err := mmapio.OpenAll(paths)
			require.NoError(t, err)
			base := runtime.NumGoroutine()
			require.NoError(t, os.Truncate(paths[victim], 4096))
			_, err = Merge(&failingWriter{limit: 1 << 40}, m, MergeOptions{Workers: workers})
			var fe *mmapio.FaultError
			require.True(t, errors.As(err, &fe), "victim %d, workers %d: %v", victim, workers, err)
			require.Equal(t, paths[victim], fe.File)
			waitGoroutines(t, base)
			require.NoError(t, m.Close())
		}
	}
}
