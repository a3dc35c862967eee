package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var (
	kmStages = chronon.MustStages("km.fetch", "km.exec", "km.commit")
	kmMem    = chronon.MustSpan("km.mem")
	kmTask   = chronon.MustAsyncSpan("km.task")
)

// An O3 core traced with the stage helper: stages as complete spans, an
// inner span inside execute (a cache access), retirements and a squash,
// and instructions still in flight when the run ends.
func stagesTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "o3.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("cpu0")
	require.NoError(t, err)
	a, b, c := kmStages.Start(0), kmStages.Start(1), kmStages.Start(2) // sequence number 0 is an instruction
	kmStages.Enter(u, 10, &a, 0)
	kmStages.Enter(u, 11, &b, 0)
	kmStages.Enter(u, 12, &a, 1)
	kmMem.Between(u, 14, 17, 0, a.Flow()) // inside execute [12, 20)
	kmTask.Begin(u, 14, 99, 0)            // an async span: not a stage
	kmStages.Enter(u, 13, &b, 1)
	kmStages.Squash(u, 15, &b)
	kmStages.Enter(u, 20, &a, 2)
	kmTask.End(u, 20, 99)
	kmStages.Retire(u, 22, &a)
	kmStages.Enter(u, 21, &c, 0)
	kmStages.Enter(u, 23, &c, 1) // in flight at the end: fetch done, execute open
	kmStages.Leave(25, &c)
	require.NoError(t, tr.Close())
	return path
}

func TestKanataStagesRetireAndInnerSpans(t *testing.T) {
	res, out := exportFile(t, stagesTrace(t), mmapio.Query{}, WithFormat(FormatKanata))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	_, err = validateKanata(data)
	require.ErrorContains(t, err, "has no R", "the instruction in flight has none")
	lg, err := validateKanataInFlight(data, true)
	require.NoError(t, err)
	require.Len(t, lg.insts, 3)

	a := lg.insts[0]
	require.Equal(t, uint64(1), a.sim, "the flow id of sequence number 0")
	require.True(t, a.retired)
	require.Equal(t, uint64(22), a.end, "retired at its retire event")
	require.Equal(t, []kLogStage{
		{0, "km.fetch", 10, 12},
		{0, "km.exec", 12, 14},
		{0, "km.mem", 14, 17},
		{0, "km.exec", 17, 20}, // execute resumes after the inner span: no hole
		{0, "km.commit", 20, 22},
	}, a.stages)
	require.NotContains(t, a.detail, "km.task", "an async span without a flow belongs to no instruction")

	b := lg.insts[1]
	require.True(t, b.flush)
	require.Equal(t, uint64(15), b.end)
	require.Equal(t, []kLogStage{{0, "km.fetch", 11, 13}, {0, "km.exec", 13, 15}}, b.stages)

	c := lg.insts[2]
	require.False(t, c.retired || c.flush, "in flight at the end: no R")
	require.Equal(t, []kLogStage{{0, "km.fetch", 21, 23}, {0, "km.exec", 23, 25}}, c.stages)
	require.Equal(t, uint64(1), res.Retired)
	require.Equal(t, uint64(1), res.Flushed)
	require.Equal(t, uint64(1), res.InFlight)
}
