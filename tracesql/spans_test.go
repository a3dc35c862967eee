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

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
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
	if w == "orphans" {
		require.NoError(t, orphansTrace(os.Getenv("TRACESQL_FRESH_PATH")))
		return
	}
	if w == "clocks" {
		require.NoError(t, clocksTrace(os.Getenv("TRACESQL_FRESH_PATH")))
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
	sets := [][]string{{lanes}, {pipe}, {lanes, pipe}}
	if raceEnabled {
		// The two traces in one database: every path the race detector
		// watches (make test's stage 5 runs each trace alone too).
		sets = sets[2:]
	}
	for _, paths := range sets {
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
	// Async spans pair per unit, so they are read in parallel unless the
	// query reads parent (a parent may be on any unit).
	async := open(t, []string{tasksTrace(t, "tasks")})
	require.NotEqual(t, "0", one(t, async, "SELECT count(*) FROM spans"))
	require.Greater(t, tracesql.SpanTasks(async), int64(1), "async spans, parent not read: parallel")
	one(t, async, "SELECT count(parent) FROM spans")
	require.Zero(t, tracesql.SpanTasks(async), "parent read: serial")
	var hi uint64
	fmt.Sscan(one(t, async, "SELECT max(cycle) FROM events"), &hi)
	cols := "unit, lane, name, start, \"end\", dur, flow, span, id, parent_id, time, end_time"
	for _, from := range []string{
		"spans",
		fmt.Sprintf("spans(cycles := '%d-%d')", hi/3, hi/2),
		fmt.Sprintf("spans WHERE unit = '%s'", one(t, async, "SELECT unit FROM spans GROUP BY unit ORDER BY count(*) DESC LIMIT 1")),
	} {
		q := "SELECT " + cols + " FROM " + from + " ORDER BY ALL"
		tracesql.SetSerialSpans(async, false)
		got := rows(t, async, q)
		require.Greater(t, tracesql.SpanTasks(async), int64(1), "%s: read in parallel", from)
		tracesql.SetSerialSpans(async, true)
		want := rows(t, async, q)
		require.Zero(t, tracesql.SpanTasks(async))
		require.NotEmpty(t, want, from)
		require.Equal(t, want, got, from)
	}
}

// clocksTrace writes spans (begin/end on lanes, complete) on three units:
// one on the file's time base (picoseconds) and two clock domains of
// their own (2 GHz and 1 GHz).
func clocksTrace(path string) error {
	tr, err := chronon.Create(path, chronon.WithTimeBase(chronon.Picoseconds), chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
	if err != nil {
		return err
	}
	op, fill := chronon.MustSpan("op"), chronon.MustSpan("fill")
	var units []*chronon.Unit
	for i, tb := range []chronon.TimeBase{{}, chronon.Hz(2_000_000_000), chronon.Hz(1_000_000_000)} {
		u, err := tr.NewUnit(fmt.Sprintf("clk%d", i))
		if err != nil {
			return err
		}
		if !tb.IsZero() {
			if err := u.SetTimeBase(tb); err != nil {
				return err
			}
		}
		units = append(units, u)
	}
	for c := uint64(1); c < 20_000; c += 3 {
		for i, u := range units {
			lane := uint32(c % 4)
			op.Begin(u, c, lane, 0)
			op.End(u, c+uint64(i)+2, lane, 0)
			fill.Complete(u, c, c%7+1, 4, c)
		}
	}
	return tr.Close()
}

// TestSpansTime: the spans table has the time of each span's start and
// end (time, end_time) by its unit's time base, else the file's, as
// events.time converts a cycle: the same in the parallel scan, the serial
// one and a span's own table; async spans have them too; a
// trace with no time base has neither column.
func TestSpansTime(t *testing.T) {
	db := open(t, []string{freshTrace(t, "clocks")})
	perTick := `(SELECT * FROM (VALUES ('clk0', 1e-12), ('clk1', 5e-10), ('clk2', 1e-9)) v(unit, s))`
	bad := `SELECT count(*), count(*) FILTER (WHERE time IS NULL OR end_time IS NULL
		OR abs(time - start * v.s) > 1e-15 * time OR abs(end_time - "end" * v.s) > 1e-15 * end_time) FROM spans JOIN ` + perTick + ` v USING (unit)`
	all := `SELECT * FROM spans ORDER BY ALL`
	tracesql.SetSerialSpans(db, false)
	par := rows(t, db, all)
	require.Greater(t, tracesql.SpanTasks(db), int64(1), "read in parallel")
	require.Equal(t, fmt.Sprintf("%d|0", len(par)), one(t, db, bad), "parallel")
	tracesql.SetSerialSpans(db, true)
	require.Equal(t, par, rows(t, db, all), "serial = parallel")
	require.Zero(t, tracesql.SpanTasks(db))
	require.Equal(t, fmt.Sprintf("%d|0", len(par)), one(t, db, bad), "serial")
	require.Greater(t, len(par), 3*6000)
	// The start's time is its begin's events.time (a span's number is its
	// begin's seq); a span's table has the columns too.
	require.Equal(t, "0", one(t, db, `SELECT count(*) FROM spans s JOIN events e ON e.seq = s.span WHERE s.time IS DISTINCT FROM e.time`))
	require.Equal(t, one(t, db, `SELECT count(*), sum(end_time - time) FROM spans WHERE name = 'fill'`), one(t, db, `SELECT count(*), sum(end_time - time) FROM fill`))
	require.Equal(t, "DOUBLE|DOUBLE", one(t, db, "SELECT typeof(time), typeof(end_time) FROM spans LIMIT 1"))

	async := open(t, []string{tasksTrace(t, "tasks")})
	require.Equal(t, "0", one(t, async, `SELECT count(*) FILTER (WHERE time IS NULL OR abs(time - start * 1e-12) > 1e-15 * time
		OR abs(end_time - "end" * 1e-12) > 1e-15 * end_time) FROM spans`))
	require.Greater(t, tracesql.SpanTasks(async), int64(1), "async spans, parent not read: parallel")
	pipe := open(t, []string{trace(t, "pipe")})
	for _, c := range []string{"time", "end_time"} {
		_, err := pipe.Query("SELECT " + c + " FROM spans")
		require.Error(t, err, "no time base, no %s column", c)
	}
}

// TestSpansParentID: parent_id is the parent id a span's begin recorded
// (its Parent argument, NULL for 0), so the children whose parent id named
// no span are those with parent_id and no parent: as many as stats counts
// in its parents_ notes, and the parent ids stats names are theirs.
func TestSpansParentID(t *testing.T) {
	path := tasksTrace(t, "tasks")
	db := open(t, []string{path})
	var with, differ int
	fmt.Sscanf(one(t, db, `SELECT count(*), count(*) FILTER (WHERE s.parent_id IS DISTINCT FROM nullif(b.parent, 0)) FROM spans s JOIN req_in_begin b ON b.seq = s.span`), "%d|%d", &with, &differ)
	require.Positive(t, with)
	require.Zero(t, differ, "parent_id is the begin's Parent argument")
	require.Equal(t, "0", one(t, db, "SELECT count(*) FROM spans WHERE parent IS NOT NULL AND parent_id IS NULL"), "a parent comes from a parent id")

	db = open(t, []string{freshTrace(t, "orphans")})
	rep, err := analysis.Stats(db.Readers()[0], mmapio.Query{})
	require.NoError(t, err)
	missing := rep.Notes["parents_not_found"] + rep.Notes["parents_begun_after_child"] + rep.Notes["parents_in_a_cycle_of_ids"]
	require.Equal(t, uint64(5), missing, "%v", rep.Notes)
	require.Equal(t, fmt.Sprint(missing), one(t, db, "SELECT count(*) FROM spans WHERE parent IS NULL AND parent_id IS NOT NULL"))
	orphans := map[string]bool{}
	for _, r := range rows(t, db, "SELECT DISTINCT unit || ' ' || start || ' ' || parent_id FROM spans WHERE parent IS NULL AND parent_id IS NOT NULL") {
		orphans[r] = true
	}
	for reason, mps := range rep.MissingParents {
		for _, mp := range mps {
			require.True(t, orphans[fmt.Sprintf("%s %d %d", mp.Unit, mp.Cycle, mp.ParentID)], "%s: %+v", reason, mp)
		}
	}
}

// orphansTrace writes async spans whose parent ids name no span when
// their children begin: a parent begun later, two spans naming each
// other, parents that never begin.
func orphansTrace(path string) error {
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
	if err != nil {
		return err
	}
	req, sub := chronon.MustAsyncSpan("req"), chronon.MustAsyncSpan("sub")
	u, err := tr.NewUnit("u")
	if err != nil {
		return err
	}
	v, err := tr.NewUnit("v")
	if err != nil {
		return err
	}
	sub.Begin(u, 10, 2, 5) // its parent begins at cycle 20
	sub.Begin(v, 12, 3, 5)
	req.Begin(u, 20, 5, 0)
	sub.Begin(u, 21, 4, 5) // found
	sub.Begin(u, 30, 6, 7) // 6 and 7 name each other
	sub.Begin(u, 30, 7, 6)
	sub.Begin(v, 40, 10, 100) // 100 and 101 never begin
	sub.Begin(v, 41, 11, 101)
	sub.End(v, 60, 3)
	sub.End(v, 60, 10)
	sub.End(v, 60, 11)
	req.End(u, 60, 5)
	for _, id := range []uint64{2, 4, 6, 7} {
		sub.End(u, 60, id)
	}
	return tr.Close()
}

// TestAsyncSpansPairPerUnit: the parallel scan pairs async spans per unit
// by id as the span orderer does: an end closes its unit's span of that id
// begun last (nested ids, the same id open on two units, ends without a
// begin, spans never ended, a child begun before its parent in one cycle).
func TestAsyncSpansPairPerUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
	require.NoError(t, err)
	task := chronon.MustAsyncSpan("task")
	a, err := tr.NewUnit("a")
	require.NoError(t, err)
	b, err := tr.NewUnit("b")
	require.NoError(t, err)
	for base := uint64(0); base < 2000; base += 20 {
		task.Begin(a, base+1, 7, 0)
		task.Begin(a, base+2, 7, 0) // nested: the next end of 7 on a closes this one
		task.End(a, base+3, 7)
		task.Begin(b, base+3, 7, 0) // the same id open on another unit
		task.End(a, base+5, 7)
		task.End(b, base+6, 7)
		task.End(a, base+6, 9) // no begin
		task.Begin(a, base+7, 8, 7)
		task.Begin(a, base+9, 11, 12) // before its parent, in the same cycle
		task.Begin(b, base+9, 12, 0)
		task.End(b, base+10, 12)
		task.End(a, base+10, 11)
		task.End(a, base+12, 8)
	}
	task.Begin(a, 5000, 10, 0) // never ended
	task.Begin(b, 5001, 10, 0)
	require.NoError(t, tr.Close())

	db := open(t, []string{path})
	q := "SELECT unit, name, start, \"end\", dur, span, id, parent_id FROM spans ORDER BY ALL"
	tracesql.SetSerialSpans(db, false)
	got := rows(t, db, q)
	require.Greater(t, tracesql.SpanTasks(db), int64(1), "read in parallel")
	tracesql.SetSerialSpans(db, true)
	want := rows(t, db, q)
	require.Len(t, want, 100*6+2)
	require.Equal(t, want, got)
	// The nested span of 7 on a: begun at 2, ended at 3; the outer 1-5.
	require.Equal(t, "1", one(t, db, "SELECT count(*) FROM spans WHERE unit = 'a' AND id = 7 AND start = 2 AND \"end\" = 3"))
	require.Equal(t, "1", one(t, db, "SELECT count(*) FROM spans WHERE unit = 'a' AND id = 7 AND start = 1 AND \"end\" = 5"))
}
