package workload

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// countTracer counts what the simulation reports (from any goroutine).
type countTracer struct {
	mu                                    sync.Mutex
	starts, ends, tags, milestones, early int
	started                               map[uint64]bool
}

func (c *countTracer) StartTask(_ int, s TaskStart) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.starts++
	if s.ParentID != 0 && !c.started[s.ParentID] {
		c.early++ // a child reported before its parent
	}
	c.started[s.ID] = true
}
func (c *countTracer) EndTask(int, TaskEnd)        { c.mu.Lock(); c.ends++; c.mu.Unlock() }
func (c *countTracer) AddTaskTag(int, TaskTag)     { c.mu.Lock(); c.tags++; c.mu.Unlock() }
func (c *countTracer) AddMilestone(int, Milestone) { c.mu.Lock(); c.milestones++; c.mu.Unlock() }

func TestTaskSimShape(t *testing.T) {
	sim := NewTaskSim(7)
	require.Len(t, sim.Comps, TaskComponents)
	require.Equal(t, 150, TaskComponents)
	c := &countTracer{started: map[uint64]bool{}}
	made := sim.Run(c, 100_000, 1) // one goroutine: the order the engine makes them
	require.Equal(t, made, c.starts+c.ends+c.tags+c.milestones)
	require.GreaterOrEqual(t, made, 100_000)
	require.Equal(t, c.starts, c.ends, "every task ends: the run drains")
	require.Greater(t, c.early, c.starts/20, "some children are reported before their parent")
	again := &countTracer{started: map[uint64]bool{}}
	require.Equal(t, made, NewTaskSim(7).Run(again, 100_000, 3), "a seed is one event stream whatever the goroutines")
}

// Both adapters record every hook event; the async one's trace has a tree
// per wavefront whose every edge is found, with real time.
func TestTaskWorkloads(t *testing.T) {
	dir := t.TempDir()
	var written [3]uint64
	events := 60_000
	if raceEnabled {
		// A third of the events still runs every goroutine of the
		// simulation, each adapter and a tree of spans under one root;
		// make test's stage without the race detector runs 60,000.
		events = 20_000
	}
	for i, w := range []string{"tasks-lanes", "tasks", "tasks-mutex"} {
		res, err := Run(w, filepath.Join(dir, w+".ctrace"), events, 0, 3, chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		require.Zero(t, res.Dropped)
		written[i] = res.Written
	}
	require.Equal(t, written[0], written[1])
	require.Equal(t, written[0], written[2])
	r, err := mmapio.Open(filepath.Join(dir, "tasks.ctrace"))
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, chronon.Picoseconds, r.Schema().TimeBase)
	rep, err := analysis.Stats(r, mmapio.Query{})
	require.NoError(t, err)
	require.Len(t, rep.Trees, 1)
	require.Equal(t, "wavefront", rep.Trees[0].Root)
	require.Zero(t, rep.Notes["parents_not_found"])
	require.Zero(t, rep.Notes["spans_open_at_end"])
	require.Zero(t, rep.Notes["unmatched_span_ends"])
	res, err := export.Export(r, mmapio.Query{}, filepath.Join(dir, "tasks.pftrace"))
	require.NoError(t, err)
	require.Zero(t, res.ParentsMissing)
	require.NotZero(t, res.ParentLinks)
	require.Equal(t, 1.0, res.TimeScale)
}

// heapProbe reads the live heap once, at the simulation's first hook call,
// and the number of heap objects allocated over the run.
type heapProbe struct {
	noTracer
	once sync.Once
	live uint64
}

func (p *heapProbe) StartTask(int, TaskStart) {
	p.once.Do(func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.live = ms.HeapAlloc
	})
}

// The stand-in's own memory: the live heap it asks for is live while it
// runs, every hook event allocates its garbage, and the event stream is
// the same with or without it.
func TestTaskSimMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("heap figures under the race detector are not the program's; make test runs this without it")
	}
	const events = 20_000
	run := func(m SimMemory) (p *heapProbe, made int, mallocs uint64) {
		p = &heapProbe{}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		made = NewTaskSim(7).WithMemory(m).Run(p, events, 2)
		runtime.ReadMemStats(&after)
		return p, made, after.Mallocs - before.Mallocs
	}
	bare, made0, mallocs0 := run(SimMemory{})
	withHeap, made1, _ := run(SimMemory{LiveMiB: 8})
	withGarbage, made2, mallocs2 := run(SimMemory{GarbagePerEvent: 256})
	require.Equal(t, made0, made1, "a seed is one event stream whatever the memory")
	require.Equal(t, made0, made2)
	require.InDelta(t, float64(8<<20), float64(withHeap.live)-float64(bare.live), float64(1<<20), "the live heap asked for is live while the simulation runs")
	require.GreaterOrEqual(t, mallocs2-mallocs0, uint64(4*made0), "256 bytes per event are four 64-byte objects an event")
	require.Less(t, withGarbage.live-min(withGarbage.live, bare.live), uint64(1<<20), "garbage does not stay live")
}
