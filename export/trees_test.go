package export

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The formats of the task traces below: Akita's shape (tasks with ids,
// parents, kinds as symbols, tags on their tasks, picosecond times).
var (
	treeTask = chronon.MustAsyncSpan2[chronon.Symbol, chronon.Symbol]("task", "kind={} what={}")
	treeTag  = chronon.MustFormat2[uint64, chronon.Symbol]("tag task={} what={}", chronon.WithSpanID(0))
	treeFire = chronon.MustFormat2[uint64, uint64]("fire n={} parent={}", chronon.WithParent(1))
	treeDone = chronon.MustFormat2[uint64, uint32]("task done id={} status={}", chronon.AsAsyncEnd(0), chronon.WithName("task"))
)

// taskSpec is what the test trace holds, for the assertions.
type taskSpec struct {
	maxOpenL2 int               // async spans open at once on gpu.l2
	children  map[uint64]uint64 // task id -> parent id (the parent exists)
	missing   int               // tasks whose parent id names no task
}

// taskTrace writes a trace of tasks: roots on gpu.cu0, children on gpu.l2
// (some begun before their parent in the same tick, on the same unit),
// 160 overlapping tasks on gpu.l2 that end in random order, an id reused
// after its end, an end without a begin, a task never ended, tags.
func taskTrace(t testing.TB) (string, taskSpec) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tasks.ctrace")
	tr, err := chronon.Create(path, chronon.WithSimulationName("akita"), chronon.WithTimeBase(chronon.Picoseconds),
		chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096))
	require.NoError(t, err)
	cu, err := tr.NewUnit("gpu.cu0")
	require.NoError(t, err)
	l2, err := tr.NewUnit("gpu.l2")
	require.NoError(t, err)
	reqIn, reqOut, read := tr.Intern("req_in"), tr.Intern("req_out"), tr.Intern("ReadReq")
	spec := taskSpec{children: map[uint64]uint64{}}
	rng := rand.New(rand.NewPCG(1, 2))

	// 160 tasks open at once on l2, begun one per ns, ended in random order.
	type end struct{ at, id uint64 }
	var ends []end
	for i := range uint64(160) {
		treeTask.Begin(l2, 1000*i, 10+i, 0, reqIn, read)
		ends = append(ends, end{200_000 + uint64(rng.IntN(100_000)), 10 + i})
	}
	sort.Slice(ends, func(a, b int) bool {
		return ends[a].at < ends[b].at || ends[a].at == ends[b].at && ends[a].id < ends[b].id
	})
	spec.maxOpenL2 = 160
	// Each root on cu0, a child on l2 a tick later; for every other root
	// the child's own subtask begins before the child, in the same tick.
	ei := 0
	for i := range uint64(50) {
		at := 310_000 + 3000*i
		for ; ei < len(ends) && ends[ei].at <= at; ei++ {
			treeTask.End(l2, ends[ei].at, ends[ei].id)
		}
		root, child, sub := 1000+i, 2000+i, 3000+i
		treeTask.Begin(cu, at, root, 0, reqOut, read)
		if i%2 == 0 {
			treeTask.Begin(l2, at+1000, sub, child, reqIn, read) // before its parent, same tick
			treeTask.Begin(l2, at+1000, child, root, reqIn, read)
		} else {
			treeTask.Begin(l2, at+1000, child, root, reqIn, read)
			treeTask.Begin(l2, at+1000, sub, child, reqIn, read)
		}
		spec.children[child], spec.children[sub] = root, child
		treeTag.Emit(l2, at+1500, child, tr.Intern("hit"))
		treeTask.End(l2, at+2000, sub)
		treeDone.Emit(l2, at+2500, child, 7) // an end with an argument
		treeTask.End(cu, at+2600, root)
	}
	for ; ei < len(ends); ei++ {
		treeTask.End(l2, ends[ei].at, ends[ei].id)
	}
	treeFire.Emit(cu, 500_000, 1, 1000)             // an instant child of an ended root
	treeTask.Begin(l2, 510_000, 10, 0, reqIn, read) // id 10 reused after its end
	treeTask.End(l2, 511_000, 10)
	treeTask.End(l2, 512_000, 99_999)                        // an end without a begin
	treeTask.Begin(l2, 513_000, 77_777, 55_555, reqIn, read) // a parent never seen; never ended
	spec.missing = 1
	treeTag.Emit(l2, 514_000, 12_345, tr.Intern("lost")) // a tag of no open task: on the unit's track
	require.NoError(t, tr.Close())
	return path, spec
}

// pfSlice is a slice or instant of an exported Perfetto trace.
type pfSlice struct {
	ev         vEvent
	begin, end uint64 // ns
}

// perfettoSlices pairs the slice begins and ends of a validated trace per
// track; instants are slices of no length.
func perfettoSlices(tr *vTrace) []*pfSlice {
	var out []*pfSlice
	open := map[uint64][]*pfSlice{}
	for _, ev := range tr.events {
		switch ev.typ {
		case typeSliceBegin:
			s := &pfSlice{ev: ev, begin: ev.ts}
			open[ev.track] = append(open[ev.track], s)
			out = append(out, s)
		case typeSliceEnd:
			st := open[ev.track]
			s := st[len(st)-1]
			open[ev.track] = st[:len(st)-1]
			s.end = ev.ts
			for k, v := range ev.args { // an end's arguments belong to its slice
				s.ev.args[k] = v
			}
		case typeInstant:
			out = append(out, &pfSlice{ev: ev, begin: ev.ts, end: ev.ts})
		}
	}
	return out
}

// perfettoArrows replays the flows as trace processor does
// (track_event_parser: a flow id begins at a slice, steps to the next
// slice with it, and a terminating id ends it there) and returns the
// arrows, from slice to slice.
func perfettoArrows(slices []*pfSlice) map[*pfSlice][]*pfSlice {
	active := map[uint64]*pfSlice{}
	arrows := map[*pfSlice][]*pfSlice{} // to -> from
	for _, s := range slices {
		for _, id := range s.ev.flows {
			if from, ok := active[id]; ok {
				arrows[s] = append(arrows[s], from)
			}
			active[id] = s
		}
		for _, id := range s.ev.term {
			if from, ok := active[id]; ok {
				arrows[s] = append(arrows[s], from)
				delete(active, id)
			}
		}
	}
	return arrows
}

func argU(s *pfSlice, name string) uint64 {
	v, _ := s.ev.args[name].(uint64)
	return v
}

func TestExportTasksPerfetto(t *testing.T) {
	trace, spec := taskTrace(t)
	res, out := exportFile(t, trace, mmapio.Query{})
	tr, err := validatePerfetto(out)
	require.NoError(t, err)
	require.Equal(t, uint64(160+3*50+1+1), res.AsyncSpans)
	require.Equal(t, uint64(1), res.UnmatchedEnds, "the end without a begin")
	require.Equal(t, uint64(1), res.UnterminatedSpans, "the task never ended")
	require.Equal(t, uint64(2*50+1), res.ParentLinks)
	require.Equal(t, uint64(spec.missing), res.ParentsMissing)
	require.Equal(t, 0.001, res.NsPerCycle)
	require.Equal(t, 1.0, res.TimeScale)

	// gpu.l2's async spans take as many rows as were open at once.
	rows := 0
	for _, tk := range tr.tracks {
		if tr.trackPath(tk.parent) == "gpu.l2" {
			rows++
		}
	}
	require.Equal(t, spec.maxOpenL2, rows)

	slices := perfettoSlices(tr)
	arrows := perfettoArrows(slices)
	byID := map[uint64][]*pfSlice{}
	for _, s := range slices {
		if s.ev.name == "task" {
			byID[argU(s, "id")] = append(byID[argU(s, "id")], s)
		}
	}
	linked := 0
	for _, s := range slices {
		parent := argU(s, "parent")
		if s.ev.name == "task" {
			require.Equal(t, "ReadReq", s.ev.args["what"], "symbols are exported as their strings")
			if spec.children[argU(s, "id")] == 0 && parent != 0 {
				require.Empty(t, arrows[s], "task %d's parent %d never began", argU(s, "id"), parent)
				continue
			}
		}
		if parent == 0 {
			continue
		}
		from := arrows[s]
		require.Len(t, from, 1, "%s %d (parent %d) at %d", s.ev.name, argU(s, "id"), parent, s.begin)
		require.Equal(t, parent, argU(from[0], "id"), "the arrow to %d comes from its parent", argU(s, "id"))
		require.LessOrEqual(t, from[0].begin, s.begin)
		linked++
	}
	require.Equal(t, 2*50+1, linked, "every child's arrow reaches its parent, the instant's too")
	for _, s := range slices {
		switch {
		case s.ev.name == "task" && argU(s, "id") >= 2000 && argU(s, "id") < 3000:
			require.Equal(t, uint64(7), s.ev.args["status"], "the end's argument is the slice's")
		case s.ev.name == "tag" && s.ev.args["what"] == "hit":
			// A tag is drawn on its task's row, inside the task.
			task := byID[argU(s, "task")][0]
			require.Equal(t, task.ev.track, s.ev.track)
			require.True(t, task.begin <= s.begin && s.begin <= task.end)
		case s.ev.name == "tag":
			require.Equal(t, "gpu.l2", tr.trackPath(s.ev.track), "a tag of no open task is on its unit")
		}
	}
	// Picoseconds in the file, nanoseconds in the export.
	require.Equal(t, uint64(310), byID[1000][0].begin)
	require.Equal(t, uint64(312)+1, byID[1000][0].end, "2600 ps rounds to 3 ns")
	require.Len(t, byID[10], 2, "an id reused after its end is a second span")
}

// chromeEvents reads a Chrome JSON export.
func chromeEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	return doc.TraceEvents
}

// In Chrome JSON each parent edge is a flow start ("s") right after the
// parent's B, bound to the slice enclosing it, and a flow end ("f") right
// before the child's B or X, bound to the next slice of its thread.
func TestExportTasksChromeJSON(t *testing.T) {
	trace, spec := taskTrace(t)
	_, out := exportFile(t, trace, mmapio.Query{}, WithFormat(FormatChromeJSON))
	type slice struct{ args map[string]any }
	stacks := map[float64][]*slice{}
	pendingF := map[float64][]string{} // tid -> flow ids waiting for the next slice
	starts := map[string]*slice{}
	arrows := map[*slice]*slice{}
	var all []*slice
	for _, e := range chromeEvents(t, out) {
		tid, _ := e["tid"].(float64)
		args, _ := e["args"].(map[string]any)
		switch e["ph"] {
		case "B", "X":
			s := &slice{args: args}
			all = append(all, s)
			for _, id := range pendingF[tid] {
				require.Contains(t, starts, id, "flow %s ends before it starts", id)
				arrows[s] = starts[id]
			}
			delete(pendingF, tid)
			if e["ph"] == "B" {
				stacks[tid] = append(stacks[tid], s)
			}
		case "E":
			st := stacks[tid]
			s := st[len(st)-1]
			stacks[tid] = st[:len(st)-1]
			for k, v := range args {
				s.args[k] = v
			}
		case "s":
			require.Equal(t, "parent", e["cat"])
			st := stacks[tid]
			require.NotEmpty(t, st, "a flow start with no enclosing slice")
			starts[e["id"].(string)] = st[len(st)-1]
		case "f":
			_, bp := e["bp"]
			require.False(t, bp, "binds to the next slice")
			pendingF[tid] = append(pendingF[tid], e["id"].(string))
		}
	}
	linked := 0
	for _, s := range all {
		p, _ := s.args["parent"].(float64)
		id, _ := s.args["id"].(float64)
		if p == 0 || (s.args["kind"] != nil && spec.children[uint64(id)] == 0) {
			continue
		}
		from := arrows[s]
		require.NotNil(t, from, "child %v of %v has no arrow", id, p)
		require.Equal(t, p, from.args["id"])
		linked++
	}
	require.Equal(t, 2*50+1, linked)
}

// A window that starts while tasks are open begins them at its start (on
// their rows) with the arrows to their children still to come; a split
// file does the same.
func TestExportTasksWindowAndSplit(t *testing.T) {
	trace, _ := taskTrace(t)
	// Root 1000+i begins at 310000+3000i ps, its child a tick later: a
	// window from 311 ns on starts inside root 1000 before its child.
	res, out := exportFile(t, trace, mmapio.Query{}.WithCycles(310_500, 400_000))
	tr, err := validatePerfetto(out)
	require.NoError(t, err)
	require.NotZero(t, res.ClippedSpans)
	slices := perfettoSlices(tr)
	arrows := perfettoArrows(slices)
	var child *pfSlice
	for _, s := range slices {
		if s.ev.name == "task" && argU(s, "id") == 2000 {
			child = s
		}
	}
	require.NotNil(t, child)
	require.Len(t, arrows[child], 1, "the clipped root still starts the arrow to its child")
	require.Equal(t, "gpu.cu0", tr.trackPath(arrows[child][0].ev.track)[:7])
	require.Equal(t, uint64(310_500/1000+1), arrows[child][0].begin, "the root begins at the window's start (310.5 ns rounds up)")

	// Split files: a parent begun again at the top of a file starts the
	// arrows to its children in that file, so every child keeps its arrow.
	res, _ = exportFile(t, trace, mmapio.Query{}, WithMaxFileBytes(8_000))
	require.Greater(t, len(res.Files), 4)
	linked := 0
	for _, f := range res.Files {
		tr, err := validatePerfetto(f)
		require.NoError(t, err, f)
		slices := perfettoSlices(tr)
		for to, from := range perfettoArrows(slices) {
			require.Len(t, from, 1)
			require.Equal(t, argU(to, "parent"), argU(from[0], "id"))
			linked++
		}
	}
	// The instant whose parent had ended keeps its arrow only when both
	// are in one file (an ended span is not begun again).
	require.GreaterOrEqual(t, linked, 2*50)
}

// WithNsPerCycle wins over the trace's time base; a unit's own clock
// converts its cycles.
func TestExportTimeBases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clocks.ctrace")
	tr, err := chronon.Create(path, chronon.WithTimeBase(chronon.Hz(2_000_000_000)), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	fast, err := tr.NewUnit("fast")
	require.NoError(t, err)
	slow, err := tr.NewUnit("slow")
	require.NoError(t, err)
	require.NoError(t, slow.SetTimeBase(chronon.Hz(500_000_000)))
	tick := chronon.MustFormat1[uint64]("clock tick n={}")
	for c := range uint64(4) {
		tick.Emit(fast, 4*c, c)
		tick.Emit(slow, c, c) // a quarter of the fast clock's cycles, the same times
	}
	require.NoError(t, tr.Close())
	res, out := exportFile(t, path, mmapio.Query{})
	require.Equal(t, 0.5, res.NsPerCycle)
	vt, err := validatePerfettoTimes(out, true)
	require.NoError(t, err)
	times := map[string][]uint64{}
	for _, ev := range vt.events {
		times[vt.trackPath(ev.track)] = append(times[vt.trackPath(ev.track)], ev.ts)
	}
	require.Equal(t, []uint64{0, 2, 4, 6}, times["fast"])
	require.Equal(t, []uint64{0, 2, 4, 6}, times["slow"])

	res, out = exportFile(t, path, mmapio.Query{}, WithNsPerCycle(3))
	require.Equal(t, 3.0, res.NsPerCycle)
	vt, err = validatePerfetto(out)
	require.NoError(t, err)
	var got []uint64
	for _, ev := range vt.events {
		if vt.trackPath(ev.track) == "fast" {
			got = append(got, ev.ts)
		}
	}
	require.Equal(t, []uint64{0, 12, 24, 36}, got, "the option's scale, every unit alike")
}
