package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The pre-pass keeps the blocks it decoded for the export's iteration, up
// to a quarter of the reader's memory budget: with the smallest budget
// only some are kept and the others are decoded again, and the log is the
// same byte for byte, whole or in a window.
func TestKanataKeptBlocksWithinBudget(t *testing.T) {
	trace := hazardTrace(t, 4000)
	for _, q := range []mmapio.Query{{}, mmapio.Query{}.WithCycles(1000, 3000)} {
		var logs [][]byte
		var decoded []int64
		for _, opts := range [][]mmapio.Option{nil, {mmapio.WithMemoryBudget(mmapio.MinMemoryBudget)}} {
			r, err := mmapio.Open(trace, opts...)
			require.NoError(t, err)
			plan, err := rawread.Plan(r, q)
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "out.kanata")
			_, err = Export(r, q, out, WithFormat(FormatKanata))
			require.NoError(t, err)
			decoded = append(decoded, rawread.Decodes(r)-int64(len(plan)))
			require.NoError(t, r.Close())
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			logs = append(logs, data)
		}
		require.Equal(t, string(logs[0]), string(logs[1]))
		require.Zero(t, decoded[0], "the default budget keeps every block: each is decoded once")
		require.Positive(t, decoded[1], "the smallest budget keeps some blocks only: the others are decoded again")
	}
}
