//go:build cgo

package tracesql_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// chromeSlices exports path's window a-b as Chrome JSON (1 ns a cycle) and
// pairs its slices: "start-end" for each, sorted. Begins and ends pair per
// (pid, tid) stack; complete events ("X") are slices of their own.
func chromeSlices(t *testing.T, path string, a, b uint64) []string {
	t.Helper()
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	out := filepath.Join(t.TempDir(), "w.json")
	_, err = export.Export(r, mmapio.Query{}.WithCycles(a, b), out, export.WithFormat(export.FormatChromeJSON), export.WithNsPerCycle(1))
	require.NoError(t, err)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Ph       string  `json:"ph"`
			Ts       float64 `json:"ts"`
			Dur      float64 `json:"dur"`
			Pid, Tid any
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	stacks := map[string][]uint64{}
	var got []string
	cyc := func(us float64) uint64 { return uint64(us*1000 + 0.5) } // ts are microseconds
	for _, e := range doc.TraceEvents {
		k := fmt.Sprint(e.Pid, "/", e.Tid)
		switch e.Ph {
		case "B":
			stacks[k] = append(stacks[k], cyc(e.Ts))
		case "E":
			st := stacks[k]
			require.NotEmpty(t, st, "an end without a begin")
			got = append(got, fmt.Sprintf("%d-%d", st[len(st)-1], cyc(e.Ts)))
			stacks[k] = st[:len(st)-1]
		case "X":
			got = append(got, fmt.Sprintf("%d-%d", cyc(e.Ts), cyc(e.Ts)+cyc(e.Dur)))
		}
	}
	slices.Sort(got)
	return got
}

// spans(cycles := 'A-B') answers with the spans export --cycles A-B draws:
// those open at A start at A, and those still open at the end of the
// window (begin/end spans whose end lies past B or was never written)
// end at the last event the window holds, as the exports close them; a
// complete span keeps its recorded end. Before, SQL dropped the spans
// still open at the window's end.
func TestSpansWindowMatchesExport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "win.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.mshr")
	require.NoError(t, err)
	sp := chronon.MustSpan("miss")
	note := chronon.MustFormat1[uint64]("note {}")
	sp.Complete(u, 50, 10, 0, 0) // ends before the window
	sp.Begin(u, 90, 1, 0)        // open across the whole window: [100, last]
	sp.Complete(u, 99, 300, 2, 0)
	sp.Begin(u, 120, 3, 0) // ends past the window: [120, last]
	sp.Begin(u, 130, 4, 0)
	sp.End(u, 140, 4, 0)
	note.Emit(u, 170, 1) // the window's last event
	sp.End(u, 250, 3, 0)
	sp.Begin(u, 260, 5, 0) // never ended: [260, 270] in the whole trace
	note.Emit(u, 270, 2)
	require.NoError(t, tr.Close())

	db := open(t, []string{path})
	for _, w := range [][2]uint64{{100, 200}, {0, 1000}, {125, 135}, {100, 165}} {
		want := chromeSlices(t, path, w[0], w[1])
		got := rows(t, db, fmt.Sprintf(`SELECT start || '-' || "end" FROM spans(cycles := '%d-%d')`, w[0], w[1]))
		slices.Sort(got)
		require.Equal(t, want, got, "window %d-%d", w[0], w[1])
	}
	require.Equal(t, []string{"100-170", "100-399", "120-170", "130-140"},
		rows(t, db, `SELECT start || '-' || "end" FROM spans(cycles := '100-200') ORDER BY 1`))
	// The whole table closes the span never ended at the trace's last event.
	require.Contains(t, strings.Join(rows(t, db, `SELECT start || '-' || "end" FROM spans`), " "), "260-270")
}
