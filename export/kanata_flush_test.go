package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// A flush of a flow the export never saw (its instruction outside the
// selection, or a kill of a sequence number never fetched) is not an
// instruction: no row is made for it (no I immediately followed by its R),
// and the Result counts it as FlushesIgnored. A later event of that flow
// is an instruction as usual.
func TestKanataFlushOfUnseenFlow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kill.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.fetch")
	require.NoError(t, err)
	kSpan.Complete(u, 10, 5, 0, 1)
	kFlushF.Emit(u, 12, 77) // flow 77 has no event before
	kSpan.Complete(u, 13, 2, 0, 2)
	kFlushF.Emit(u, 14, 2) // a real flush
	kFlushF.Emit(u, 15, 78)
	kSpan.Complete(u, 16, 2, 0, 78) // flow 78 after its stray flush
	require.NoError(t, tr.Close())

	res, data, lg := exportKanataLog(t, path, mmapio.Query{})
	require.NotContains(t, string(data), "\t77\t", "no row for the flush of flow 77")
	var sims []uint64
	for _, in := range lg.insts {
		sims = append(sims, in.sim)
	}
	require.Equal(t, []uint64{1, 2, 78}, sims)
	require.True(t, lg.insts[1].flush)
	require.True(t, lg.insts[2].retired, "flow 78's span after its stray flush is an instruction")
	require.Equal(t, uint64(3), res.Instructions)
	require.Equal(t, uint64(1), res.Flushed)
	require.Equal(t, uint64(2), res.FlushesIgnored)
}

// A selection without events (a --cycles window past the trace, or
// between its events) is "no events in the selection", naming the file and
// the window, not a complaint about missing flows and spans.
func TestKanataEmptySelection(t *testing.T) {
	trace := pipesimTrace(t, 20)
	r, err := mmapio.Open(trace)
	require.NoError(t, err)
	defer r.Close()
	out := filepath.Join(t.TempDir(), "empty.kanata")
	_, err = Export(r, mmapio.Query{}.WithCycles(1_000_000, 2_000_000), out, WithFormat(FormatKanata))
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, trace)
	require.Contains(t, msg, "no events in the selection")
	require.Contains(t, msg, "cycles 1000000-2000000")
	require.NotContains(t, msg, "neither flows nor spans")
	require.Equal(t, 1, strings.Count(msg, trace))
	_, statErr := os.Stat(out)
	require.True(t, os.IsNotExist(statErr), "no output for an empty selection")
}
