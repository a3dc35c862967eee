//go:build cgo

package tracesql_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// tasksTrace writes the task simulation's trace through one of its
// adapters: "tasks" (async spans by id, parent ids) or "tasks-lanes"
// (spans on lanes the adapter allocates), the same simulation either way.
// Each is written once and shared, read-only, by the tests that read it.
func tasksTrace(t *testing.T, w string) string {
	t.Helper()
	tasksTraces.Lock()
	defer tasksTraces.Unlock()
	if p, ok := tasksTraces.paths[w]; ok {
		return p
	}
	dir := filepath.Dir(trace(t, "w1")) // the shared traces' directory, removed by TestMain
	path := filepath.Join(dir, w+".ctrace")
	_, err := workload.Run(w, path, workloadEvents(), 0, 3, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
	require.NoError(t, err)
	if tasksTraces.paths == nil {
		tasksTraces.paths = map[string]string{}
	}
	tasksTraces.paths[w] = path
	return path
}

var tasksTraces struct {
	sync.Mutex
	paths map[string]string
}

// workloadEvents is the size of tasksTrace's traces: 60,000 events, and
// 20,000 under the race detector, which looks at the scan's goroutines,
// not at how many spans they pair (every unit, lane, window and parent
// still has spans at a third of the size); make test's stage without it
// runs the full size. (freshTrace's stay at 60,000: at a third, a window
// of the pipeline's trace is not read in parallel.)
func workloadEvents() int {
	if raceEnabled {
		return 20_000
	}
	return 60_000
}

// TestAsyncSpans: the async spans of the task simulation, paired by
// (unit, id) with the exporters' orderer, are the spans its lane adapter
// records for the same run (count, total duration, extent); each has a
// number of its own and its id; a parent is a span open when its child
// begins, and most spans below the top level find theirs.
func TestAsyncSpans(t *testing.T) {
	async := open(t, []string{tasksTrace(t, "tasks")})
	lanes := open(t, []string{tasksTrace(t, "tasks-lanes")})
	q := `SELECT count(*), sum(dur), min(start), max("end") FROM spans`
	want := one(t, lanes, q)
	require.NotEqual(t, "0", want[:1])
	require.Equal(t, want, one(t, async, q))
	require.Equal(t, "0", one(t, async, "SELECT count(*) - count(DISTINCT span) + count(*) - count(id) FROM spans"), "a number and an id each")
	require.Equal(t, "0", one(t, lanes, "SELECT count(id) + count(parent) FROM spans"), "lanes: no id, no parent")
	var children, found int
	fmt.Sscanf(one(t, async, `SELECT count(*), count(p.span) FROM spans c LEFT JOIN spans p ON c.parent = p.span WHERE c.parent IS NOT NULL`), "%d|%d", &children, &found)
	require.Positive(t, children)
	require.Equal(t, children, found, "every parent is a span")
	require.Equal(t, "0", one(t, async, `SELECT count(*) FROM spans c JOIN spans p ON c.parent = p.span WHERE NOT (p.start <= c.start AND c.start <= p."end")`), "a parent is open when its child begins")
	// The begin's arguments: its format's table, joined on the begin's seq;
	// interned strings (role Symbol) read as their text.
	var spans, joined, what int
	fmt.Sscanf(one(t, async, `SELECT (SELECT count(*) FROM spans WHERE name = 'req_out'), count(*), count(DISTINCT b.what) FROM spans s JOIN req_out_begin b ON b.seq = s.span`), "%d|%d|%d", &spans, &joined, &what)
	require.Positive(t, spans)
	require.Equal(t, spans, joined, "every span finds its begin")
	require.Positive(t, what)
	require.Equal(t, "VARCHAR", one(t, async, "SELECT typeof(what) FROM req_out_begin LIMIT 1"))
}

// TestSpansWindowKeepsOpenSpans: spans(cycles := 'A-B') keeps the spans
// open at A, starting at A (as export --cycles does), and drops those that
// ended before it: the window's rows are the whole table's that end at A
// or later, their start moved up to A.
func TestSpansWindowKeepsOpenSpans(t *testing.T) {
	for _, path := range []string{trace(t, "pipe"), tasksTrace(t, "tasks")} {
		t.Run(filepath.Base(path), func(t *testing.T) { spansWindow(t, path) })
	}
}

func spansWindow(t *testing.T, path string) {
	db := open(t, []string{path})
	var hi uint64
	fmt.Sscan(one(t, db, "SELECT max(cycle) FROM events"), &hi)
	for _, a := range []uint64{1, hi / 3, hi / 2, hi - 2} {
		want := rows(t, db, fmt.Sprintf(`SELECT unit, lane, name, greatest(start, %[1]d) AS s, "end", "end" - greatest(start, %[1]d), flow, span, id, parent FROM spans WHERE "end" >= %[1]d ORDER BY ALL`, a))
		got := rows(t, db, fmt.Sprintf(`SELECT unit, lane, name, start, "end", dur, flow, span, id, parent FROM spans(cycles := '%d-%d') ORDER BY ALL`, a, hi))
		require.NotEmpty(t, want)
		require.Equal(t, want, got, "window %d-%d", a, hi)
		clipped := one(t, db, fmt.Sprintf(`SELECT count(*) FROM spans WHERE start < %[1]d AND "end" >= %[1]d`, a))
		require.NotEqual(t, "0", clipped, "the window at %d cuts no span: the test shows nothing", a)
	}
}

// freshTrace writes workload w (as tasksTrace does) in a child process of
// the test binary: formats are registered process-wide and a trace carries
// every one registered before it, so a trace written here after a test ran
// the async adapter would carry its async formats too.
func freshTrace(t *testing.T, w string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), w+".ctrace")
	require.NoError(t, childTrace(w, path))
	return path
}

// childTrace writes workload w (or "pipesim") to path in a child process,
// whose format registry holds only its formats.
func childTrace(w, path string) error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFreshTraceChild$")
	cmd.Env = append(os.Environ(), "TRACESQL_FRESH_WORKLOAD="+w, "TRACESQL_FRESH_PATH="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("writing %s in a child: %v: %s", w, err, out)
	}
	return nil
}

// TestFreshTraceChild is freshTrace's child; run by itself, it does nothing.
func TestFreshTraceChild(t *testing.T) {
	w := os.Getenv("TRACESQL_FRESH_WORKLOAD")
	if w == "" {
		return
	}
	if w == "pipesim" {
		tr, err := chronon.Create(os.Getenv("TRACESQL_FRESH_PATH"), chronon.WithSimulationName("pipesim"), chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		require.NoError(t, pipesim.Run(tr, 3000))
		require.NoError(t, tr.Close())
		return
	}
	units := 0 // the workload's own
	if w == "pipeline" {
		units = 16 // two cores
	}
	_, err := workload.Run(w, os.Getenv("TRACESQL_FRESH_PATH"), 60_000, units, 3, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
	require.NoError(t, err)
}

// TestParallelSpansEqualSerial: the spans table read a unit at a time on
// every thread has the rows of the serial ordered iteration, whole, in
// cycle windows (the lookback), for a unit, and over two traces at once;
// a trace with async formats (their ids and parents may pair across units)
// reads serially.
func TestParallelSpansEqualSerial(t *testing.T) {
	lanes, pipe := freshTrace(t, "tasks-lanes"), freshTrace(t, "pipeline")
	for _, paths := range [][]string{{lanes}, {pipe}, {lanes, pipe}} {
		db := open(t, paths)
		var hi uint64
		fmt.Sscan(one(t, db, "SELECT max(cycle) FROM events"), &hi)
		unit := one(t, db, "SELECT unit FROM spans GROUP BY unit ORDER BY count(*) DESC LIMIT 1")
		for _, from := range []string{
			"spans",
			fmt.Sprintf("spans(cycles := '%d-%d')", hi/3, hi/2),
			fmt.Sprintf("spans(cycles := '%d-%d')", hi/2, hi),
			fmt.Sprintf("spans WHERE unit = '%s'", unit),
		} {
			q := "SELECT * FROM " + from + " ORDER BY ALL"
			tracesql.SetSerialSpans(db, false)
			got := rows(t, db, q)
			require.Greater(t, tracesql.SpanTasks(db), int64(1), "%v %s: read in parallel", paths, from)
			tracesql.SetSerialSpans(db, true)
			want := rows(t, db, q)
			require.Zero(t, tracesql.SpanTasks(db))
			require.NotEmpty(t, want, "%v %s", paths, from)
			require.Equal(t, want, got, "%v %s", paths, from)
		}
	}
	async := open(t, []string{tasksTrace(t, "tasks")})
	require.NotEqual(t, "0", one(t, async, "SELECT count(*) FROM spans"))
	require.Zero(t, tracesql.SpanTasks(async), "async spans: serial")
}
