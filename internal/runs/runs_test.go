package runs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

// The runs are the top-level "<label>/file" keys, in order, once each; an
// input's own metadata (its "file" key, a nested merge's "a/file") names
// none.
func TestLabels(t *testing.T) {
	md := []schema.KeyValue{
		{Key: "hz/simulation", Value: "pipesim"}, {Key: "hz/file", Value: "hz.ctrace"},
		{Key: "hz/file", Value: "its own metadata"},
		{Key: "pipe/file", Value: "pipe.ctrace"}, {Key: "pipe/a/file", Value: "nested"},
		{Key: "file", Value: "x"}, {Key: "/file", Value: "x"}, {Key: "rank3/host", Value: "n1"},
	}
	require.Equal(t, []string{"hz", "pipe"}, Labels(md))
	require.Nil(t, Labels([]schema.KeyValue{{Key: "rank", Value: "3"}}))
}

// Of gives each labelled unit its label's index; unlabelled units and a
// single run are run 0 (nil: nothing to look up).
func TestOf(t *testing.T) {
	names := map[uint16]string{1: "hz/core0.fetch", 2: "pipe/core0.fetch", 3: "core0.x", 4: "other/core0.y", 5: "pipe/core1.l2/bank0"}
	var units []schema.Unit
	for id, n := range names {
		units = append(units, schema.Unit{ID: id, Name: n})
	}
	name := func(id uint16) string { return names[id] }
	of := Of(units, name, []string{"hz", "pipe"})
	require.Len(t, of, 1<<16)
	require.Equal(t, []uint16{0, 0, 1, 0, 0, 1}, of[:6])
	require.Nil(t, Of(units, name, []string{"hz"}))
	require.Nil(t, Of(units, name, nil))
	require.Equal(t, 1, Count(nil))
	require.Equal(t, 2, Count([]string{"a", "b"}))
}

// Run 0 keeps its ids; other runs' ids below 2^48 never meet them or each
// other's.
func TestFlowID(t *testing.T) {
	require.Equal(t, uint64(77), FlowID(0, 77))
	seen := map[uint64]bool{}
	for run := uint16(0); run < 4; run++ {
		for _, id := range []uint64{1, 2, 77, 1<<48 - 1} {
			f := FlowID(run, id)
			require.False(t, seen[f], "run %d id %d", run, id)
			seen[f] = true
		}
	}
}
