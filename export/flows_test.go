package export

import (
	"cmp"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// importedFlows replays a Chrome JSON file's bound flows the way Perfetto's
// JSON importer does (json_trace_parser: flow_in and flow_out is a step of a
// started flow, flow_out alone begins one, flow_in alone ends one) and
// returns the arrows drawn per flow id and the importer's error counts.
func importedFlows(t *testing.T, path string) (arrows map[uint64]int, errs map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	arrows, errs = map[uint64]int{}, map[string]int{}
	started := map[uint64]bool{}
	for _, e := range doc.TraceEvents {
		id, ok := e["bind_id"].(string)
		if !ok {
			continue
		}
		flow, err := strconv.ParseUint(id, 0, 64)
		require.NoError(t, err)
		in, _ := e["flow_in"].(bool)
		out, _ := e["flow_out"].(bool)
		switch {
		case in && out:
			if !started[flow] {
				errs["flow_step_without_start"]++
				continue
			}
			arrows[flow]++
		case out:
			if started[flow] {
				errs["flow_duplicate_id"]++
				continue
			}
			started[flow] = true
		case in:
			if !started[flow] {
				errs["flow_end_without_start"]++
				continue
			}
			arrows[flow]++
		default:
			errs["flow_without_direction"]++
		}
	}
	return arrows, errs
}

// Every pipesim instruction is one flow of 6 events (fetch ... retired):
// Perfetto must draw its 5 arrows. Before the fix every event said
// flow_in and flow_out, a step of a flow that never began: no arrows.
func TestChromeJSONFlowsDrawArrows(t *testing.T) {
	const n = 200
	_, out := exportFile(t, pipesimTrace(t, n), mmapio.Query{}, WithFormat(FormatChromeJSON))
	arrows, errs := importedFlows(t, out)
	require.Empty(t, errs)
	require.Len(t, arrows, n)
	for id, a := range arrows {
		require.Equal(t, 5, a, "flow %d", id)
	}
}

// Split files stand alone: a flow cut by a split begins again in the next
// file, so no file has a step or an end without a start, and only the
// arrows across the cuts are lost.
func TestChromeJSONFlowsAcrossSplits(t *testing.T) {
	const n = 3000
	res, _ := exportFile(t, pipesimTrace(t, n), mmapio.Query{}, WithFormat(FormatChromeJSON), WithMaxFileBytes(128<<10))
	require.Greater(t, len(res.Files), 3)
	total := 0
	for _, f := range res.Files {
		arrows, errs := importedFlows(t, f)
		require.Empty(t, errs, f)
		for _, a := range arrows {
			total += a
		}
	}
	require.LessOrEqual(t, total, 5*n)
	require.Greater(t, total, 5*n-5*len(res.Files)*30, "few arrows lost at the cuts")
}

// flowIndex gives the same answers as one plain map whatever the ids:
// counting up, random, and flows that come back after aging to old.
func TestFlowIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, gen := range []func(i uint64) uint64{
		func(i uint64) uint64 { return i/6 + 1 },                   // sequence numbers, 6 events each
		func(i uint64) uint64 { return rng.Uint64N(50_000) },       // random, many revisits after aging
		func(i uint64) uint64 { return 1<<40 - i/3 },               // counting down
		func(i uint64) uint64 { return (i % 20_000) * 0x9e3779b9 }, // a cycle longer than young
	} {
		x, ref := newFlowIndex(), map[uint64]uint64{}
		for ord := uint64(0); ord < 200_000; ord++ {
			id := gen(ord)
			prev, ok := x.swap(id, ord)
			wprev, wok := ref[id]
			// Compared directly: testify's reflection on 800k pairs was
			// most of the test's time.
			if ok != wok || prev != wprev {
				t.Fatalf("id %d at %d: swap gave (%d, %v), the map (%d, %v)", id, ord, prev, ok, wprev, wok)
			}
			ref[id] = ord
		}
		require.NotEmpty(t, x.runs, "the test reaches aging")
		for _, r := range x.runs {
			require.True(t, slices.IsSortedFunc(r, func(a, b idOrd) int { return cmp.Compare(a.id, b.id) }))
		}
		require.LessOrEqual(t, len(x.runs), 6, "runs merge like a binary counter")
	}
}
