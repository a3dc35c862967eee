package analysis

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// A parent id that names no span is one of three things, and the notes
// say which: a span begun after its child (in a later cycle), spans of one
// cycle naming each other (a cycle of ids: one goes without), or no span
// at all.
func TestStatsNamesWhyAParentIsMissing(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, _ := tr.NewUnit("u")
		treeSub.Begin(u, 10, 2, 5) // its parent begins at cycle 20
		treeSub.Begin(u, 12, 3, 5) // and a second child of it
		treeReq.Begin(u, 20, 5, 0)
		treeSub.Begin(u, 30, 6, 7) // 6 and 7 name each other
		treeSub.Begin(u, 30, 7, 6)
		treeSub.Begin(u, 40, 8, 99) // 99 never begins
		for _, id := range []uint64{2, 3, 5, 6, 7, 8} {
			treeSub.End(u, 50, id)
		}
	})
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Equal(t, uint64(2), rep.Notes["parents_begun_after_child"], "%v", rep.Notes)
	require.Equal(t, uint64(1), rep.Notes["parents_in_a_cycle_of_ids"], "%v", rep.Notes)
	require.Equal(t, uint64(1), rep.Notes["parents_not_found"], "%v", rep.Notes)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	require.Contains(t, text.String(), "  parents begun after child: 2\n")
	require.Contains(t, text.String(), "  parents not found: 1\n")
}

// "Trees of X" says what it counts: the roots named X that have children
// (requests with sub-requests), and how many more had none.
func TestStatsTreesSayWhatTheyCount(t *testing.T) {
	rep, err := Stats(treeTrace(t), mmapio.Query{})
	require.NoError(t, err)
	require.Len(t, rep.Trees, 1)
	require.Equal(t, uint64(2), rep.Trees[0].Trees)
	require.Equal(t, uint64(1), rep.Trees[0].Childless, "req 9 has no children")
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	require.Contains(t, text.String(), "\nTrees of req (2 requests with sub-requests, 1 more without: spans linked by parent ids)\n")
}
