package analysis

import (
	"bytes"
	"encoding/json"
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

// The notes name the parent ids they count, not only how many: the first
// MaxMissingParents of each reason, each with its first child (unit,
// cycle, id), in the text under the note and in the JSON report; past
// them the text says how many children it leaves out.
func TestStatsNamesTheMissingParents(t *testing.T) {
	r := openTrace(t, func(tr *chronon.Tracer) {
		u, _ := tr.NewUnit("u")
		v, _ := tr.NewUnit("v")
		treeSub.Begin(u, 10, 2, 5) // its parent begins at cycle 20
		treeSub.Begin(v, 12, 3, 5)
		treeReq.Begin(u, 20, 5, 0)
		treeSub.Begin(u, 30, 6, 7) // 6 and 7 name each other
		treeSub.Begin(u, 30, 7, 6)
		for i := range uint64(7) { // parents 100..106 never begin, 100 twice
			treeSub.Begin(v, 40+i, 10+i, 100+i)
		}
		treeSub.Begin(u, 50, 20, 100)
		treeSub.End(v, 60, 3)
		for _, id := range []uint64{2, 5, 6, 7, 20} {
			treeSub.End(u, 60, id)
		}
		for i := range uint64(7) {
			treeSub.End(v, 60, 10+i)
		}
	})
	rep, err := Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Equal(t, uint64(8), rep.Notes["parents_not_found"], "%v", rep.Notes)
	id := func(v uint64) *uint64 { return &v }
	require.Equal(t, []MissingParent{{ParentID: 5, Children: 2, Unit: "u", Cycle: 10, ID: id(2)}}, rep.MissingParents["parents_begun_after_child"])
	require.Equal(t, []MissingParent{
		{ParentID: 100, Children: 2, Unit: "v", Cycle: 40, ID: id(10)},
		{ParentID: 101, Children: 1, Unit: "v", Cycle: 41, ID: id(11)},
		{ParentID: 102, Children: 1, Unit: "v", Cycle: 42, ID: id(12)},
		{ParentID: 103, Children: 1, Unit: "v", Cycle: 43, ID: id(13)},
		{ParentID: 104, Children: 1, Unit: "v", Cycle: 44, ID: id(14)},
	}, rep.MissingParents["parents_not_found"])
	cyc := rep.MissingParents["parents_in_a_cycle_of_ids"]
	require.Len(t, cyc, 1)
	require.Equal(t, "u", cyc[0].Unit)
	require.Equal(t, uint64(30), cyc[0].Cycle)
	require.NotNil(t, cyc[0].ID)
	require.ElementsMatch(t, []uint64{6, 7}, []uint64{cyc[0].ParentID, *cyc[0].ID}, "6 and 7: one is the other's child")

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, rep))
	require.Contains(t, text.String(), "  parents begun after child: 2\n    parent id 5: 2 children, the first child id 2 on u at cycle 10\n  parents in")
	require.Contains(t, text.String(), "  parents not found: 8\n"+
		"    parent id 100: 2 children, the first child id 10 on v at cycle 40\n"+
		"    parent id 101: child id 11 on v at cycle 41\n"+
		"    parent id 102: child id 12 on v at cycle 42\n"+
		"    parent id 103: child id 13 on v at cycle 43\n"+
		"    parent id 104: child id 14 on v at cycle 44\n"+
		"    ... and 2 more children\n")
	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, rep))
	require.Contains(t, js.String(), `"missing_parents": {`)
	var back Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, rep.MissingParents, back.MissingParents)
}
