package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

var (
	// The same text twice: with the dependency role and without it.
	kDep      = chronon.MustFormat2[uint64, uint64]("kanata test wake seq={} on={}", chronon.WithFlow(0), chronon.WithDepends(1))
	kDepPlain = chronon.MustFormat2[uint64, uint64]("kanata test wake seq={} on={}", chronon.WithFlow(0))
)

// Every pipesim slot that reads the previous slot's register gets one W
// line naming it, written at its rename (the dependency event's cycle),
// after both I lines and before the consumer's R; no other W.
func TestKanataPipesimDependencies(t *testing.T) {
	const n = 200
	res, data, lg := exportKanataLog(t, hazardTrace(t, n), mmapio.Query{})
	var deps uint64
	for i, in := range lg.insts {
		seq := uint64(i)
		if !pipesim.DependsOnPrevious(seq) || seq == 0 {
			require.Empty(t, in.deps, "instruction %d", i)
			continue
		}
		deps++
		require.Equal(t, []kLogDep{{producer: seq - 1, cycle: seq + 3}}, in.deps, "instruction %d waits on %d", i, i-1)
		require.Contains(t, in.detail, "depends seq="+itoa(seq+1)+" on="+itoa(seq))
	}
	require.Equal(t, uint64(2*n/5), deps)
	require.Equal(t, deps, res.Dependencies)
	require.Zero(t, res.DependenciesDropped)
	require.Equal(t, int(deps), bytes.Count(data, []byte("\nW\t")))
}

// depTrace: instruction 1 retires early; 2 depends on 1 (retired, still a
// W), on itself and on 99 (never seen: both dropped); 3 depends on 2 (in
// flight) through format last.
func depTrace(t *testing.T, dep, last *chronon.Format2[uint64, uint64]) string {
	path := filepath.Join(t.TempDir(), "deps.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.x")
	require.NoError(t, err)
	kSpan.Complete(u, 10, 2, 0, 1)
	kSpan.Complete(u, 20, 5, 0, 2)
	dep.Emit(u, 21, 2, 1)
	dep.Emit(u, 22, 2, 2)
	dep.Emit(u, 23, 2, 99)
	kSpan.Complete(u, 22, 4, 0, 3)
	last.Emit(u, 23, 3, 2)
	require.NoError(t, tr.Close())
	return path
}

func TestKanataDependencyProducers(t *testing.T) {
	res, data, lg := exportKanataLog(t, depTrace(t, kDep, kDepPlain), mmapio.Query{})
	require.Len(t, lg.insts, 3)
	require.True(t, lg.insts[0].retired)
	require.Equal(t, uint64(12), lg.insts[0].end, "the producer retired before the W")
	require.Equal(t, []kLogDep{{producer: 0, cycle: 21}}, lg.insts[1].deps)
	require.Empty(t, lg.insts[2].deps, "a format without the role draws nothing")
	require.Contains(t, lg.insts[2].detail, "kanata test wake seq=3 on=2")
	require.Equal(t, uint64(1), res.Dependencies)
	require.Equal(t, uint64(2), res.DependenciesDropped)
	require.Equal(t, 1, bytes.Count(data, []byte("\nW\t")))

	// A window without the producer's events: it has no I, so no W.
	res, _, lg = exportKanataLog(t, depTrace(t, kDep, kDepPlain), mmapio.Query{}.WithCycles(15, 30))
	require.Len(t, lg.insts, 2)
	require.Empty(t, lg.insts[0].deps)
	require.Zero(t, res.Dependencies)
	require.Equal(t, uint64(3), res.DependenciesDropped)
}

// The role changes nothing outside the Kanata export: the Chrome JSON and
// Perfetto exports and dump of a trace whose dependency format has the
// role are those of the same trace with a plain format.
func TestDependencyRoleElsewhereUnchanged(t *testing.T) {
	withRole, plain := depTrace(t, kDep, kDep), depTrace(t, kDepPlain, kDepPlain)
	for _, format := range []string{FormatChromeJSON, FormatPerfetto} {
		_, a := exportFile(t, withRole, mmapio.Query{}, WithFormat(format))
		_, b := exportFile(t, plain, mmapio.Query{}, WithFormat(format))
		da, err := os.ReadFile(a)
		require.NoError(t, err)
		db, err := os.ReadFile(b)
		require.NoError(t, err)
		require.Equal(t, string(db), string(da), format)
	}
	dump := func(path string) string {
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		defer r.Close()
		var b bytes.Buffer
		_, err = tracetext.WriteDump(&b, r, mmapio.Query{}, 0)
		require.NoError(t, err)
		return b.String()
	}
	d := dump(withRole)
	require.Contains(t, d, "kanata test wake seq=2 on=1")
	require.Equal(t, dump(plain), d)
}
