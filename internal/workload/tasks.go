package workload

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// Two adapters trace TaskSim's hooks: tasksAsync with what chronon offers
// for tasks (async spans by id, parent ids, interned strings, a
// picosecond time base), and tasksLanes as an adapter had to before:
// spans on lanes it allocates itself, with an id -> (unit, lane) map, the
// request's root task id as the flow, and every string written out.
// Several goroutines emit into each unit: tasksAsync makes its units
// shared (chronon.WithShared), or with --workload tasks-mutex, as an
// adapter had to before shared units, ordinary units behind a mutex each;
// tasksLanes keeps the mutex, which also guards its lane map.
//
// tracegen --workload tasks | tasks-mutex | tasks-lanes | tasks-none (the
// simulation without tracing) runs them; --events is the number of hook
// events to aim at, --seed the simulation's seed; the components are
// always 150.

// taskGoroutines is how many goroutines the stand-in engine calls hooks
// from.
func taskGoroutines() int { return max(2, runtime.GOMAXPROCS(0)) }

// units makes a unit per component.
func taskUnits(t *chronon.Tracer, sim *TaskSim, opts ...chronon.UnitOption) ([]*chronon.Unit, error) {
	us := make([]*chronon.Unit, len(sim.Comps))
	for i, c := range sim.Comps {
		u, err := t.NewUnit(c.Name, append([]chronon.UnitOption{chronon.WithTypeName(c.TypeName)}, opts...)...)
		if err != nil {
			return nil, err
		}
		us[i] = u
	}
	return us, nil
}

// tasksAsync: each task kind an async span (registered on first use: an
// identical registration returns the same formats), what and where as
// symbols, tags and milestones on their task (WithSpanID). mu is nil when
// the units are shared; otherwise a mutex per unit.
type tasksAsync struct {
	t     *chronon.Tracer
	units []*chronon.Unit
	mu    []sync.Mutex
	kinds atomic.Pointer[map[string]*chronon.AsyncSpan2[chronon.Symbol, chronon.Symbol]]
	kmu   sync.Mutex
}

var (
	taskEndFmt = sync.OnceValue(func() *chronon.Format1[uint64] {
		return chronon.MustFormat1[uint64]("task end id={}", chronon.AsAsyncEnd(0), chronon.WithName("task"))
	})
	taskTagFmt = sync.OnceValue(func() *chronon.Format2[uint64, chronon.Symbol] {
		return chronon.MustFormat2[uint64, chronon.Symbol]("tag task={} what={}", chronon.WithSpanID(0))
	})
	taskMilestoneFmt = sync.OnceValue(func() *chronon.Format3[uint64, chronon.Symbol, chronon.Symbol] {
		return chronon.MustFormat3[uint64, chronon.Symbol, chronon.Symbol]("milestone task={} kind={} what={}", chronon.WithSpanID(0))
	})
)

// span returns the async span of a task kind.
func (a *tasksAsync) span(kind string) *chronon.AsyncSpan2[chronon.Symbol, chronon.Symbol] {
	if s := (*a.kinds.Load())[kind]; s != nil {
		return s
	}
	a.kmu.Lock()
	defer a.kmu.Unlock()
	old := *a.kinds.Load()
	if s := old[kind]; s != nil {
		return s
	}
	s := chronon.MustAsyncSpan2[chronon.Symbol, chronon.Symbol](kind, "what={} where={}")
	m := make(map[string]*chronon.AsyncSpan2[chronon.Symbol, chronon.Symbol], len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[kind] = s
	a.kinds.Store(&m)
	return s
}

// lock and unlock guard unit c when it is not shared.
func (a *tasksAsync) lock(c int) {
	if a.mu != nil {
		a.mu[c].Lock()
	}
}

func (a *tasksAsync) unlock(c int) {
	if a.mu != nil {
		a.mu[c].Unlock()
	}
}

func (a *tasksAsync) StartTask(c int, s TaskStart) {
	sp, what, where := a.span(s.Kind), a.t.Intern(s.What), a.t.Intern(s.Location)
	a.lock(c)
	sp.Begin(a.units[c], s.Time, s.ID, s.ParentID, what, where)
	a.unlock(c)
}

func (a *tasksAsync) EndTask(c int, e TaskEnd) {
	a.lock(c)
	taskEndFmt().Emit(a.units[c], e.Time, e.ID)
	a.unlock(c)
}

func (a *tasksAsync) AddTaskTag(c int, g TaskTag) {
	what := a.t.Intern(g.What)
	a.lock(c)
	taskTagFmt().Emit(a.units[c], g.Time, g.TaskID, what)
	a.unlock(c)
}

func (a *tasksAsync) AddMilestone(c int, m Milestone) {
	kind, what := a.t.Intern(m.Kind), a.t.Intern(m.What)
	a.lock(c)
	taskMilestoneFmt().Emit(a.units[c], m.Time, m.TaskID, kind, what)
	a.unlock(c)
}

// tasksLanes: lane spans carrying the task's id, parent and strings,
// lanes allocated per unit, the root task's id as the flow.
type tasksLanes struct {
	units []*chronon.Unit
	mu    []sync.Mutex
	idmu  sync.Mutex
	tasks map[uint64]laneTask
	free  [][]uint32 // per unit: free lanes
	lanes []uint32   // per unit: lanes made
}

type laneTask struct {
	unit int32
	lane uint32
	root uint64
}

var (
	laneBeginFmt = sync.OnceValue(func() *chronon.Format7[uint32, uint64, uint64, uint64, string, string, string] {
		return chronon.MustFormat7[uint32, uint64, uint64, uint64, string, string, string]("task lane={} root={} id={} parent={} kind={} what={} where={}",
			chronon.WithName("task"), chronon.WithKind(schema.KindSpanBegin, schema.RoleLane, schema.RoleFlow, 0, 0, 0, 0, 0))
	})
	laneEndFmt = sync.OnceValue(func() *chronon.Format2[uint32, uint64] {
		return chronon.MustFormat2[uint32, uint64]("task end lane={} root={}", chronon.WithName("task"), chronon.WithKind(schema.KindSpanEnd, schema.RoleLane, schema.RoleFlow))
	})
	laneTagFmt = sync.OnceValue(func() *chronon.Format3[uint64, uint64, string] {
		return chronon.MustFormat3[uint64, uint64, string]("tag task={} root={} what={}", chronon.WithFlow(1))
	})
	laneMilestoneFmt = sync.OnceValue(func() *chronon.Format4[uint64, uint64, string, string] {
		return chronon.MustFormat4[uint64, uint64, string, string]("milestone task={} root={} kind={} what={}", chronon.WithFlow(1))
	})
)

func (l *tasksLanes) StartTask(c int, s TaskStart) {
	l.idmu.Lock()
	root := s.ID
	if p, ok := l.tasks[s.ParentID]; ok {
		root = p.root // a child that starts before its parent cannot point at the root
	}
	var lane uint32
	if f := l.free[c]; len(f) > 0 {
		lane, l.free[c] = f[len(f)-1], f[:len(f)-1]
	} else {
		lane = l.lanes[c]
		l.lanes[c]++
	}
	l.tasks[s.ID] = laneTask{int32(c), lane, root}
	l.idmu.Unlock()
	l.mu[c].Lock()
	laneBeginFmt().Emit(l.units[c], s.Time, lane, root, s.ID, s.ParentID, s.Kind, s.What, s.Location)
	l.mu[c].Unlock()
}

func (l *tasksLanes) EndTask(c int, e TaskEnd) {
	l.idmu.Lock()
	tk, ok := l.tasks[e.ID]
	if ok {
		delete(l.tasks, e.ID)
		l.free[tk.unit] = append(l.free[tk.unit], tk.lane)
	}
	l.idmu.Unlock()
	if !ok {
		return
	}
	l.mu[tk.unit].Lock()
	laneEndFmt().Emit(l.units[tk.unit], e.Time, tk.lane, tk.root)
	l.mu[tk.unit].Unlock()
}

func (l *tasksLanes) root(id uint64) uint64 {
	l.idmu.Lock()
	defer l.idmu.Unlock()
	return l.tasks[id].root
}

func (l *tasksLanes) AddTaskTag(c int, g TaskTag) {
	root := l.root(g.TaskID)
	l.mu[c].Lock()
	laneTagFmt().Emit(l.units[c], g.Time, g.TaskID, root, g.What)
	l.mu[c].Unlock()
}

func (l *tasksLanes) AddMilestone(c int, m Milestone) {
	root := l.root(m.TaskID)
	l.mu[c].Lock()
	laneMilestoneFmt().Emit(l.units[c], m.Time, m.TaskID, root, m.Kind, m.What)
	l.mu[c].Unlock()
}

// noTracer is the simulation without tracing.
type noTracer struct{}

func (noTracer) StartTask(int, TaskStart)    {}
func (noTracer) EndTask(int, TaskEnd)        {}
func (noTracer) AddTaskTag(int, TaskTag)     {}
func (noTracer) AddMilestone(int, Milestone) {}

func runTasks(t *chronon.Tracer, events, _ int, seed uint64, mem SimMemory) error {
	return runTasksAsync(t, events, seed, mem, true)
}

func runTasksMutex(t *chronon.Tracer, events, _ int, seed uint64, mem SimMemory) error {
	return runTasksAsync(t, events, seed, mem, false)
}

// runTasksAsync runs tasksAsync on shared units, or on ordinary ones with
// a mutex each.
func runTasksAsync(t *chronon.Tracer, events int, seed uint64, mem SimMemory, shared bool) error {
	sim := NewTaskSim(seed).WithMemory(mem)
	var opts []chronon.UnitOption
	if shared {
		opts = append(opts, chronon.WithShared())
	}
	us, err := taskUnits(t, sim, opts...)
	if err != nil {
		return err
	}
	a := &tasksAsync{t: t, units: us}
	if !shared {
		a.mu = make([]sync.Mutex, len(us))
	}
	m := map[string]*chronon.AsyncSpan2[chronon.Symbol, chronon.Symbol]{}
	a.kinds.Store(&m)
	sim.Run(a, events, taskGoroutines())
	return nil
}

func runTasksLanes(t *chronon.Tracer, events, _ int, seed uint64, mem SimMemory) error {
	sim := NewTaskSim(seed).WithMemory(mem)
	us, err := taskUnits(t, sim)
	if err != nil {
		return err
	}
	l := &tasksLanes{units: us, mu: make([]sync.Mutex, len(us)), tasks: map[uint64]laneTask{},
		free: make([][]uint32, len(us)), lanes: make([]uint32, len(us))}
	sim.Run(l, events, taskGoroutines())
	return nil
}

func runTasksNone(_ *chronon.Tracer, events, _ int, seed uint64, mem SimMemory) error {
	NewTaskSim(seed).WithMemory(mem).Run(noTracer{}, events, taskGoroutines())
	return nil
}
