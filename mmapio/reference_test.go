package mmapio

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// referenceVectors maps each frozen vector to the dump the original printed
// for it (noindex.ctrace has none of its own: the original printed nothing,
// a reader that walks blocks prints its indexed twin's text), and what
// Status must say.
var referenceVectors = []struct {
	file, dump string
	state      State
	blocks     int
	events     uint64
}{
	{"mixed-small.ctrace", "mixed-small.dump.txt.gz", StateComplete, 1, 1000},
	{"raw.ctrace", "raw.dump.txt.gz", StateComplete, 4, 5000},
	{"multiblock.ctrace", "multiblock.dump.txt.gz", StateComplete, 611, 60000},
	{"noschema.ctrace", "noschema.dump.txt.gz", StateComplete, 2, 2000},
	{"noindex-twin.ctrace", "noindex-twin.dump.txt.gz", StateComplete, 2, 3000},
	{"noindex.ctrace", "noindex-twin.dump.txt.gz", StateRecovered, 2, 3000},
	{"crash.ctrace", "crash.dump.txt.gz", StateComplete, 102, 20000},
	{"crash.ctrace.crash", "crash.dump.txt.gz", StateRecovered, 102, 20000},
}

func TestReferenceVectors(t *testing.T) {
	for _, v := range referenceVectors {
		t.Run(v.file, func(t *testing.T) {
			want := refDump(t, v.dump)
			for _, decoders := range []int{1, 3} {
				// A small read-ahead makes many segments: the merge's seams.
				r := openT(t, refPath(v.file), withDecoders(decoders), withReadAhead(64<<10))
				st := r.Status()
				require.Equal(t, v.state, st.State, st.String())
				require.Equal(t, v.blocks, st.Blocks)
				require.Equal(t, v.events, st.Events)
				require.Zero(t, st.TornBytes)
				require.Equal(t, string(want), string(dumpText(t, r, Query{}, 0)), "WriteDump")
				require.Equal(t, string(want), string(iterText(t, r, Query{})), "Events + AppendLine")
			}
		})
	}
}

func TestReferenceStatus(t *testing.T) {
	r := openT(t, refPath("crash.ctrace.crash"))
	st := r.Status()
	require.Contains(t, st.Why, "did not close")
	require.Equal(t, int64(0), st.TornBytes)
	off, size := r.f.SchemaSection()
	require.Equal(t, int64(64), off, "schema located after the header")
	require.Equal(t, int64(1332), size, "the schema runs to the first block, as the closed twin's header says")
	require.Equal(t, uint64(1396), r.Blocks()[0].DataOffset)
	require.Nil(t, r.Footer())
	for _, b := range r.Blocks() {
		require.NotNil(t, b.Units, "verification found the units of recovered blocks")
	}

	r = openT(t, refPath("noindex.ctrace"))
	require.Contains(t, r.Status().Why, "index flag is clear")

	r = openT(t, refPath("mixed-small.ctrace"))
	require.Equal(t, "complete", r.Status().String())
	require.False(t, r.HasUnitSets())
	require.Equal(t, "conformance-mixed-11", r.Schema().SimulationName)
}

// The oracle's dump (file order) agrees with ours on every vector that has
// a footer: all of them are in cycle order already.
func TestReferenceAgreesWithOracle(t *testing.T) {
	if _, err := ctracetest.Oracle(); err != nil {
		t.Skipf("!!!!! SKIPPING THE ORACLE COMPARISON: %v !!!!!", err)
	}
	for _, v := range referenceVectors {
		if v.state != StateComplete {
			continue
		}
		out, err := ctracetest.RunOracle("dump", refPath(v.file))
		require.NoError(t, err)
		r := openT(t, refPath(v.file))
		got := dumpText(t, r, Query{}, 0)
		require.Equal(t, string(out), string(got), v.file)
	}
}
