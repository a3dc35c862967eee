//go:build cgo

package tracesql_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// Traces shared by the tests, written once.
var (
	tracesOnce sync.Once
	tracesDir  string
	tracesErr  error
)

func trace(t *testing.T, name string) string {
	t.Helper()
	tracesOnce.Do(func() {
		tracesDir, tracesErr = os.MkdirTemp("", "tracesql")
		if tracesErr != nil {
			return
		}
		// Full blocks (no periodic flush): the same layout however slow the run (-race).
		if _, tracesErr = workload.Run("w1", filepath.Join(tracesDir, "w1.ctrace"), 300_000, 8, 1, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0), chronon.WithBlockSize(64<<10)); tracesErr != nil {
			return
		}
		// rowsTrace's W1 under the race detector (written whether or not
		// it runs: a tenth of a second without it).
		if _, tracesErr = workload.Run("w1", filepath.Join(tracesDir, "w1-race.ctrace"), 60_000, 8, 1, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0), chronon.WithBlockSize(64<<10)); tracesErr != nil {
			return
		}
		if _, tracesErr = workload.Run("mixed", filepath.Join(tracesDir, "mixed.ctrace"), 20_000, 4, 1, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0)); tracesErr != nil {
			return
		}
		// pipesim's spans (fetch, decode, ...) in a child process: formats
		// register for the whole process, and a W1 trace written here
		// later would carry them (its fetch_ table would be the span's).
		tracesErr = childTrace("pipesim", filepath.Join(tracesDir, "pipe.ctrace"))
	})
	require.NoError(t, tracesErr)
	return filepath.Join(tracesDir, name+".ctrace")
}

// rowsTrace is the trace name a test that compares every row of a table
// reads: under the race detector, a W1 of 60,000 events (60 blocks, cycles
// to 40,000) for "w1". Every row of the shared 300,000-event W1 was most of
// the package's time under the race detector, which adds nothing at that
// size: the small one has every table and column. make test's stage
// without it reads the full file.
func rowsTrace(name string) string {
	if name == "w1" && raceEnabled {
		return "w1-race"
	}
	return name
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tracesDir != "" {
		os.RemoveAll(tracesDir)
	}
	os.Exit(code)
}

func open(t *testing.T, paths []string, opts ...tracesql.Option) *tracesql.DB {
	t.Helper()
	db, err := tracesql.Open(paths, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// rows runs a query and renders every row as one string, values separated
// by '|', NULL as "NULL".
func rows(t *testing.T, db *tracesql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query(q)
	require.NoError(t, err, q)
	defer rs.Close()
	cols, err := rs.Columns()
	require.NoError(t, err)
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		require.NoError(t, rs.Scan(ptrs...))
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = render(v)
		}
		out = append(out, strings.Join(cells, "|"))
	}
	require.NoError(t, rs.Err())
	return out
}

// render prints a cell as fmt.Sprint does (floats as float64), with the
// common types through strconv: fmt's reflection per cell was most of the
// cost of the tests that compare whole tables under the race detector.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case []byte:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint16:
		return strconv.FormatUint(uint64(x), 10)
	case uint8:
		return strconv.FormatUint(uint64(x), 10)
	case float32:
		return fmt.Sprint(float64(x))
	}
	return fmt.Sprint(v)
}

func one(t *testing.T, db *tracesql.DB, q string) string {
	t.Helper()
	r := rows(t, db, q)
	require.Len(t, r, 1, q)
	return r[0]
}

// argValue renders an argument as the SQL column holds it.
func argValue(a mmapio.Arg) string {
	switch a.Type {
	case schema.ArgInt8, schema.ArgInt16, schema.ArgInt32, schema.ArgInt64:
		return fmt.Sprint(a.Int())
	case schema.ArgFloat:
		return fmt.Sprint(float64(float32(a.Float())))
	case schema.ArgDouble:
		return fmt.Sprint(a.Float())
	case schema.ArgBool:
		return fmt.Sprint(a.Bool())
	case schema.ArgString:
		return string(a.Bytes())
	}
	return fmt.Sprint(a.Uint())
}

// expectTables builds, from an mmapio iteration, the rows every per-format
// table and the events table must hold (sorted), keyed by table name. An
// event's seq is its block's index << 32 | its place in the block, as an
// iteration of the whole file numbers them (rawread.Index).
func expectTables(t *testing.T, db *tracesql.DB, r *mmapio.Reader, q mmapio.Query) map[string][]string {
	fmtTable := map[uint32]string{}
	for _, f := range rows(t, db, "SELECT format_id, name FROM formats") {
		id, name, _ := strings.Cut(f, "|")
		var n uint32
		fmt.Sscan(id, &n)
		if _, ok := fmtTable[n]; !ok {
			fmtTable[n] = name
		}
	}
	start, end, windowed := q.Cycles()
	want := map[string][]string{}
	it := r.Iter(mmapio.Query{})
	defer it.Close()
	for it.Next() {
		ev := it.Event()
		if windowed && (ev.Cycle < start || ev.Cycle > end) {
			continue
		}
		seq := fmt.Sprint(uint64(ev.Block)<<32 | uint64(rawread.Index(it)))
		unit := r.UnitName(ev.UnitID)
		name := fmtTable[ev.FormatID]
		want["events"] = append(want["events"], strings.Join([]string{
			fmt.Sprint(ev.Cycle), unit, fmt.Sprint(ev.UnitID), seq, name, fmt.Sprint(ev.FormatID),
			fmt.Sprint(ev.Category), fmt.Sprint(ev.UnitID), ev.Message()}, "|"))
		f := ev.Format()
		if f == nil {
			continue
		}
		cells := []string{fmt.Sprint(ev.Cycle), unit, fmt.Sprint(ev.UnitID), seq}
		n := 0
		for _, a := range ev.Args() {
			cells = append(cells, argValue(a))
			n++
		}
		for ; n < len(f.ArgTypes); n++ {
			cells = append(cells, "NULL")
		}
		want[name] = append(want[name], strings.Join(cells, "|"))
	}
	require.NoError(t, it.Err())
	for k := range want {
		sort.Strings(want[k])
	}
	return want
}

// checkTables compares every event table with what mmapio iterates.
func checkTables(t *testing.T, path string, window string, opts ...tracesql.Option) {
	db := open(t, []string{path}, opts...)
	r := db.Readers()[0]
	q := mmapio.Query{}
	from := func(table string) string { return table }
	if window != "" {
		a, b, err := tracesql.ParseCycles(window)
		require.NoError(t, err)
		q = q.WithCycles(a, b)
		from = func(table string) string { return fmt.Sprintf("%s(cycles := '%s')", table, window) }
	}
	want := expectTables(t, db, r, q)
	require.NotEmpty(t, want["events"])
	for _, tb := range db.Tables() {
		if tb.Name != "events" && tb.Format == "" {
			continue
		}
		got := rows(t, db, "SELECT * FROM "+from(tb.Name))
		sort.Strings(got)
		require.Equal(t, len(want[tb.Name]), len(got), "table %s", tb.Name)
		require.Equal(t, want[tb.Name], got, "table %s", tb.Name)
	}
}

// TestTablesMatchMmapio: every row of events and of every per-format table,
// every column, equals what mmapio iterates: W1, the mixed workload (all 13
// argument types, long strings), pipesim; whole files and a window.
func TestTablesMatchMmapio(t *testing.T) {
	for _, name := range []string{"w1", "mixed", "pipe"} {
		t.Run(name, func(t *testing.T) {
			file := rowsTrace(name)
			checkTables(t, trace(t, file), "")
			checkTables(t, trace(t, file), "2000-3000")
		})
	}
}

// TestAggregates: counts and sums over big tables agree with mmapio (a
// cheaper check than rows, on the whole W1 file).
func TestAggregates(t *testing.T) {
	db := open(t, []string{trace(t, "w1")})
	r := db.Readers()[0]
	var n, sumCycle, fetches, taken, sumPC uint64
	perUnit := map[string]uint64{}
	for ev := range r.Events(mmapio.Query{}) {
		n++
		sumCycle += ev.Cycle
		perUnit[r.UnitName(ev.UnitID)]++
		if ev.Format().Format.Format == "fetch pc=0x{:x} taken={}" {
			fetches++
			pc, _ := ev.ArgByName("pc")
			tk, _ := ev.ArgByName("taken")
			sumPC += pc.Uint()
			if tk.Bool() {
				taken++
			}
		}
	}
	require.Equal(t, fmt.Sprintf("%d|%d", n, sumCycle), one(t, db, "SELECT count(*), sum(cycle) FROM events"))
	require.Equal(t, fmt.Sprintf("%d|%d|%d", fetches, taken, sumPC), one(t, db, "SELECT count(*), count(*) FILTER (WHERE taken), sum(pc) FROM fetch_"))
	require.Equal(t, fmt.Sprint(taken), one(t, db, "SELECT count(*) FROM fetch_ WHERE taken"))
	var want []string
	for u, c := range perUnit {
		want = append(want, fmt.Sprintf("%s|%d", u, c))
	}
	sort.Strings(want)
	require.Equal(t, want, rows(t, db, "SELECT unit, count(*) FROM events GROUP BY unit ORDER BY unit"))
}

// TestProjectionPushdown: a query on cycle alone never walks an event's
// arguments; one on an argument does.
func TestProjectionPushdown(t *testing.T) {
	db := open(t, []string{trace(t, "w1")})
	before := db.ArgDecodes()
	one(t, db, "SELECT count(*), sum(cycle), max(unit_id) FROM fetch_")
	one(t, db, "SELECT count(*), sum(cycle), min(unit), max(format) FROM events")
	require.Equal(t, before, db.ArgDecodes(), "no argument column read, no argument decoded")
	one(t, db, "SELECT sum(pc) FROM fetch_")
	require.Greater(t, db.ArgDecodes(), before)
}

// TestWindowDecodesOverlappingBlocks: a window decodes exactly the blocks
// whose cycle range meets it (as a parameter and as WithCycles), and a unit
// selection the blocks of that unit, when the query reads the events'
// cycles; a query that reads only what the footer holds (count(*), the
// unit of a block of one unit) decodes none of the blocks the selection
// wants whole.
func TestWindowDecodesOverlappingBlocks(t *testing.T) {
	path := trace(t, "w1")
	db := open(t, []string{path})
	r := db.Readers()[0]
	// A window of at least 1000 cycles that holds a block whole (the
	// writer's blocks cover more cycles as its rings grow, so it is chosen
	// from the blocks): the block in the middle of the file.
	blocks := r.Blocks()
	mid := blocks[len(blocks)/2]
	lo, hi := mid.MinCycle, max(mid.MaxCycle, mid.MinCycle+1000)
	window := fmt.Sprintf("%d-%d", lo, hi)
	overlapping, straddling := 0, 0
	for _, b := range blocks {
		if b.MaxCycle >= lo && b.MinCycle <= hi {
			overlapping++
			if b.MinCycle < lo || b.MaxCycle > hi {
				straddling++
			}
		}
	}
	require.Positive(t, overlapping)
	require.Less(t, overlapping, r.NumBlocks()/10)
	require.Less(t, straddling, overlapping)
	before := db.BlocksDecoded()
	var n, sum uint64
	for ev := range r.Events(mmapio.Query{}.WithCycles(lo, hi)) {
		n++
		sum += ev.Cycle
	}
	require.Equal(t, int64(overlapping), db.BlocksDecoded()-before) // the iteration's own
	want := fmt.Sprintf("%d|%d", n, sum)
	before = db.BlocksDecoded()
	require.Equal(t, want, one(t, db, "SELECT count(*), sum(cycle) FROM events(cycles := '"+window+"')"))
	require.Equal(t, int64(overlapping), db.BlocksDecoded()-before)
	before = db.BlocksDecoded()
	require.Equal(t, fmt.Sprint(n), one(t, db, "SELECT count(*) FROM events(cycles := '"+window+"')"))
	require.Equal(t, int64(straddling), db.BlocksDecoded()-before, "count(*): only the blocks the window cuts")

	db2 := open(t, []string{path}, tracesql.WithCycles(lo, hi))
	before = db2.BlocksDecoded()
	require.Equal(t, want, one(t, db2, "SELECT count(*), sum(cycle) FROM events"))
	require.Equal(t, int64(overlapping), db2.BlocksDecoded()-before)
	// Both: the intersection.
	require.Equal(t, "0", one(t, db2, fmt.Sprintf("SELECT count(*) FROM events(cycles := '%d-%d')", hi+100_000, hi+101_000)))

	unitBlocks, unitEvents := 0, uint32(0)
	ids := r.UnitsNamed("core0.l2")
	require.Len(t, ids, 1)
	for _, b := range r.Blocks() {
		if slices.Contains(b.Units, ids[0]) {
			unitBlocks++
			unitEvents += b.EventCount
		}
	}
	db3 := open(t, []string{path}, tracesql.WithUnit("core0.l2"))
	before = db3.BlocksDecoded()
	got := one(t, db3, "SELECT count(*), min(unit), max(unit), sum(cycle) FROM events")
	require.Contains(t, got, "|core0.l2|core0.l2|", got)
	require.Equal(t, int64(unitBlocks), db3.BlocksDecoded()-before)
	require.Equal(t, got, one(t, db, "SELECT count(*), min(unit), max(unit), sum(cycle) FROM events(unit := 'core0.l2')"))
	before = db3.BlocksDecoded()
	got = one(t, db3, "SELECT count(*), min(unit), max(unit_id) FROM events")
	require.Equal(t, fmt.Sprintf("%d|core0.l2|%d", unitEvents, ids[0]), got)
	require.Zero(t, db3.BlocksDecoded()-before, "count(*) and unit: the footer's")
}

// TestSpansCountersFlows: pipesim's spans have the latencies it defines;
// counters and flows hold every event of their formats.
func TestSpansCountersFlows(t *testing.T) {
	db := open(t, []string{trace(t, "pipe")})
	r := db.Readers()[0]
	var counters, flowEvents uint64
	var sumValue float64
	for ev := range r.Events(mmapio.Query{}) {
		f := ev.Format()
		if f.Kind == schema.KindCounter {
			counters++
			a, _ := ev.Arg(0)
			sumValue += a.Float()
		}
		for i := range f.ArgTypes {
			if f.Role(i) == schema.RoleFlow {
				if a, ok := ev.Arg(i); ok && a.Uint() != 0 {
					flowEvents++
				}
			}
		}
	}
	require.Equal(t, fmt.Sprintf("%d|%v", counters, sumValue), one(t, db, "SELECT count(*), sum(value) FROM counters"))
	require.Equal(t, fmt.Sprint(flowEvents), one(t, db, "SELECT count(*) FROM flows"))
	// Every instruction passes each stage once: as many spans per stage as
	// instructions, each lasting the stage's latency.
	got := rows(t, db, `SELECT name, count(*), min(dur), max(dur), sum(dur), count(DISTINCT flow), bool_and("end" = start + dur) FROM spans GROUP BY name ORDER BY name`)
	require.Len(t, got, len(pipesim.Stages))
	var exec uint64
	for i := uint64(0); i < 3000; i++ {
		exec += map[pipesim.Op]uint64{pipesim.ALU: 1, pipesim.MUL: 3, pipesim.LOAD: 5}[pipesim.OpOf(i)]
	}
	want := []string{
		"decode|3000|2|2|6000|3000|true",
		fmt.Sprintf("execute|3000|1|5|%d|3000|true", exec),
		"fetch|3000|1|1|3000|3000|true",
		"rename|3000|1|1|3000|3000|true",
		"retire|3000|1|1|3000|3000|true",
	}
	require.Equal(t, want, got)
	// A flow visits the stages in order, each starting where the last ended.
	require.Equal(t, "0", one(t, db, `SELECT count(*) FROM (SELECT flow, start, lag("end") OVER (PARTITION BY flow ORDER BY start) AS prev FROM spans) WHERE prev IS NOT NULL AND prev <> start`))
}

// TestSchemaTables: units, formats, categories, metadata and blocks are the
// schema's and the footer's.
func TestSchemaTables(t *testing.T) {
	db := open(t, []string{trace(t, "w1")})
	r := db.Readers()[0]
	require.Equal(t, fmt.Sprint(len(r.Units())), one(t, db, "SELECT count(*) FROM units"))
	require.Equal(t, fmt.Sprint(len(r.Formats())), one(t, db, "SELECT count(*) FROM formats"))
	require.Equal(t, fmt.Sprint(len(r.Categories())), one(t, db, "SELECT count(*) FROM categories"))
	require.Equal(t, fmt.Sprint(len(r.Metadata())), one(t, db, "SELECT count(*) FROM metadata"))
	var events uint64
	for _, b := range r.Blocks() {
		events += uint64(b.EventCount)
	}
	require.Equal(t, fmt.Sprintf("%d|%d", r.NumBlocks(), events), one(t, db, "SELECT count(*), sum(events) FROM blocks"))
	require.Equal(t, "true", one(t, db, "SELECT bool_and(events IS NOT NULL) FROM units WHERE unit_id > 0"))
}

// TestSeveralTraces: several files add a trace column, and each trace's
// rows are its own.
func TestSeveralTraces(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ctrace"), filepath.Join(dir, "b.ctrace")
	_, err := workload.Run("w1", a, 10_000, 4, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	_, err = workload.Run("w1", b, 20_000, 4, 2, chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", "7"))
	require.NoError(t, err)
	db := open(t, []string{a, b})
	// The trace column is each file's label, as dump prints it: rank<N>,
	// else the file's name without .ctrace.
	require.Equal(t, []string{"a|10000", "rank7|20000"}, rows(t, db, "SELECT trace, count(*) FROM events GROUP BY trace ORDER BY trace"))
	require.Equal(t, []string{"a", "rank7"}, rows(t, db, "SELECT DISTINCT trace FROM fetch_ ORDER BY 1"))
	require.Equal(t, []string{"a|4", "rank7|4"}, rows(t, db, "SELECT trace, count(*) FROM units WHERE unit_id > 0 GROUP BY trace ORDER BY 1"))
}

// TestErrors: a bad query, an unknown table, a unit nothing matches and a
// corrupt block give errors (no panic); the database stays usable.
func TestErrors(t *testing.T) {
	db := open(t, []string{trace(t, "w1")})
	_, err := db.Query("SELEC 1")
	require.ErrorContains(t, err, "syntax error")
	_, err = db.Query("SELECT * FROM nosuch")
	require.ErrorContains(t, err, "nosuch")
	_, err = db.Query("SELECT * FROM events(cycles := 'x-y')")
	require.ErrorContains(t, err, "cycles")
	_, err = db.Query("SELECT * FROM events(unit := 'nosuchunit')")
	require.ErrorContains(t, err, "no unit name contains")
	require.Equal(t, "1", one(t, db, "SELECT 1"))

	_, err = tracesql.Open([]string{trace(t, "w1")}, tracesql.WithUnit("nosuchunit"))
	require.ErrorContains(t, err, "no unit name contains")
	_, err = tracesql.Open([]string{filepath.Join(t.TempDir(), "missing.ctrace")})
	require.Error(t, err)

	// A block whose bytes are damaged: opening works (the footer is fine),
	// the query that reaches the block fails naming the file and block.
	bad := corruptCopy(t, trace(t, "w1"))
	db2 := open(t, []string{bad})
	rs, err := db2.Query("SELECT count(*), sum(pc) FROM fetch_")
	if err == nil {
		for rs.Next() {
		}
		err = rs.Err()
		rs.Close()
	}
	require.Error(t, err)
	require.Contains(t, err.Error(), bad)
	require.Contains(t, err.Error(), "block")
}

// corruptCopy copies a trace and overwrites the middle of its third
// block's payload.
func corruptCopy(t *testing.T, path string) string {
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	b := r.Blocks()[2]
	require.NoError(t, r.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	off := int(b.DataOffset) + schema.BlockHeaderSize + int(b.CompressedSize)/2
	for i := range 64 {
		data[off+i] ^= 0x5a
	}
	out := filepath.Join(t.TempDir(), "bad.ctrace")
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// A NULL selection parameter means no selection; it aborted the process
// (DuckDB's StringValue::Get on NULL) before.
func TestNullSelectionParameters(t *testing.T) {
	db := open(t, []string{trace(t, "pipe")})
	all := one(t, db, "SELECT count(*) FROM events")
	require.Equal(t, all, one(t, db, "SELECT count(*) FROM events(unit := NULL)"))
	require.Equal(t, all, one(t, db, "SELECT count(*) FROM events(cycles := NULL, unit := NULL)"))
	require.Equal(t, one(t, db, "SELECT count(*) FROM spans"), one(t, db, "SELECT count(*) FROM spans(unit := NULL)"))
}
