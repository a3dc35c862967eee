package workload

import (
	"fmt"
	"sync"

	"github.com/chronon-sim/chronon-go/internal/minheap"
)

// TaskSim is a stand-in for an Akita simulation (github.com/sarchlab/akita,
// the engine of MGPUSim): 150 components of a GPU memory hierarchy whose
// tracing hooks report tasks (start and end with ids and parent ids, kinds,
// tags, milestones; times in picoseconds), from several goroutines, through
// an interface shaped like Akita's tracing.Tracer. It lets the task
// tracing adapters (tasks.go) be measured on Akita's shape without Akita.
//
// Components: 64 compute units (gpu.cu.NN), 64 L1 vector caches
// (gpu.l1v.NN), 16 L2 banks (gpu.l2.NN), 4 DRAM controllers (gpu.dram.N),
// a driver and a command processor (idle); every component runs at 1 GHz
// (a tick is 1000 ps). Each compute unit runs wavefronts (a root task), 4
// at a time, each issuing 16 memory requests:
//
//	cu    req_out R (parent: the wavefront)                     t
//	l1v   pipeline P (parent I), begun before I in half of them  t+1 ns
//	      req_in I (parent R); tag read-hit/read-miss; milestone at P's end
//	      hit (65%): I ends at t+4, R at t+5
//	      miss: req_out O (parent I) to an L2 bank (bank 0 takes 40%)
//	l2    req_in J (parent O) and pipeline Q (parent J, before J in half)
//	      hit (50%): J ends after 6 ns, then O, I, R
//	      miss: req_out O2 (parent J) to DRAM bank%4
//	dram  req_in K (parent O2), 100-300 ns, a queue milestone; then O2, J,
//	      O, I, R end a few ns apart
//
// Every random choice comes from SplitMix64(seed) in the engine's order, so
// a seed gives one event stream whatever the tracer does with it.
type TaskSim struct {
	Comps []TaskComp
	seed  uint64
	mem   SimMemory
}

// WithMemory gives the simulation memory of its own (SimMemory): a live
// heap held through Run and garbage for every hook event.
func (s *TaskSim) WithMemory(m SimMemory) *TaskSim {
	s.mem = m
	return s
}

// TaskComp is one component.
type TaskComp struct {
	Name, TypeName string
	reqIn, reqOut  string // its tasks' locations
	pipeline       string // its pipeline subtask's What and location
}

// TaskStart, TaskEnd, TaskTag and Milestone are the hook events, as
// Akita's tracing package has them (ids, parents, kinds and names as
// strings, times in picoseconds).
type TaskStart struct {
	ID, ParentID         uint64
	Kind, What, Location string
	Time                 uint64
}

type TaskEnd struct {
	ID   uint64
	Time uint64
}

type TaskTag struct {
	TaskID uint64
	What   string
	Time   uint64
}

type Milestone struct {
	TaskID     uint64
	Kind, What string
	Time       uint64
}

// TaskTracer receives a component's hook events (Akita: tracing.Tracer,
// attached to a component with CollectTrace). Several goroutines call it
// at once, each for its own components; one component's events come in
// time order from one goroutine at a time.
type TaskTracer interface {
	StartTask(comp int, t TaskStart)
	EndTask(comp int, t TaskEnd)
	AddTaskTag(comp int, t TaskTag)
	AddMilestone(comp int, m Milestone)
}

// Component counts.
const (
	taskCUs   = 64
	taskL2s   = 16
	taskDRAMs = 4
	// TaskComponents is the number of components: 64 + 64 + 16 + 4 + 2.
	TaskComponents = 2*taskCUs + taskL2s + taskDRAMs + 2
)

// NewTaskSim makes the components.
func NewTaskSim(seed uint64) *TaskSim {
	s := &TaskSim{seed: seed}
	add := func(name, typ string) {
		s.Comps = append(s.Comps, TaskComp{Name: name, TypeName: typ, reqIn: name + ".req_in", reqOut: name + ".req_out", pipeline: typ + ".pipeline"})
	}
	for i := range taskCUs {
		add(fmt.Sprintf("gpu.cu.%02d", i), "ComputeUnit")
	}
	for i := range taskCUs {
		add(fmt.Sprintf("gpu.l1v.%02d", i), "L1VCache")
	}
	for i := range taskL2s {
		add(fmt.Sprintf("gpu.l2.%02d", i), "L2Cache")
	}
	for i := range taskDRAMs {
		add(fmt.Sprintf("gpu.dram.%d", i), "DRAMController")
	}
	add("gpu.driver", "Driver")
	add("gpu.cp", "CommandProcessor")
	return s
}

func cuComp(i int) int   { return i }
func l1Comp(i int) int   { return taskCUs + i }
func l2Comp(i int) int   { return 2*taskCUs + i }
func dramComp(i int) int { return 2*taskCUs + taskL2s + i }

// hookKind is which hook a call is.
type hookKind uint8

const (
	hookStart hookKind = iota
	hookEnd
	hookTag
	hookMilestone
)

// hookCall is one hook event, queued for the goroutine of its component.
type hookCall struct {
	kind       hookKind
	comp       int32
	id, parent uint64
	time       uint64
	a, b, c    string // kind, what, location (start); what (tag); kind, what (milestone)
}

// task request states: one per memory request in flight.
type taskReq struct {
	cu, l2, dram                 int
	wave                         uint64 // its wavefront's id
	r, p, i, o, j, q, o2, k      uint64 // task ids: R, P, I, O, J, Q, O2, K
	what                         string
	hitL1, hitL2, pFirst, qFirst bool
	dramLat                      uint64
}

// taskAct is a step of a request (or a wavefront) due at time t; the
// queue orders the steps of one time in the order they were pushed.
type taskAct struct {
	t    uint64
	req  int32 // index into the request slab; -1 for a wavefront step
	step uint8
	cu   int16 // wavefront steps: the compute unit
	slot int8  // wavefront steps: the wavefront slot of the compute unit
}

const (
	ns              = 1000 // ps
	taskWindow      = 32 * ns
	wavefronts      = 4 // per compute unit at a time
	requestsPerWave = 16
)

// Run simulates until about events hook events were made, then lets the
// requests in flight finish, calling tr from goroutines goroutines (each
// handles the components whose index modulo goroutines is its own, one
// window of 32 ns at a time, all of them in parallel). It returns the
// hook events made.
func (s *TaskSim) Run(tr TaskTracer, events int, goroutines int) int {
	goroutines = max(goroutines, 1)
	rng := SplitMix64{State: s.seed}
	var heap minheap.Heap[taskAct] // by (t, push order)
	var seq uint64
	push := func(a taskAct) {
		seq++
		heap.Push(a.t, seq, a)
	}
	var reqs []taskReq
	var free []int32
	nextID := uint64(0)
	id := func() uint64 { nextID++; return nextID }
	made := 0
	mem := newSimHeap(s.mem)
	defer mem.done()
	batches := make([][]hookCall, goroutines)
	emit := func(h hookCall) {
		made++
		mem.event(h.id)
		g := int(h.comp) % goroutines
		batches[g] = append(batches[g], h)
	}
	start := func(comp int, tid, parent uint64, kind, what, loc string, t uint64) {
		emit(hookCall{kind: hookStart, comp: int32(comp), id: tid, parent: parent, time: t, a: kind, b: what, c: loc})
	}
	end := func(comp int, tid, t uint64) { emit(hookCall{kind: hookEnd, comp: int32(comp), id: tid, time: t}) }
	tag := func(comp int, tid uint64, what string, t uint64) {
		emit(hookCall{kind: hookTag, comp: int32(comp), id: tid, time: t, b: what})
	}
	milestone := func(comp int, tid uint64, kind, what string, t uint64) {
		emit(hookCall{kind: hookMilestone, comp: int32(comp), id: tid, time: t, a: kind, b: what})
	}
	// Wavefronts: a root task per slot; step 0 starts one and issues its
	// requests 8-24 ns apart, step 1 ends it once they are all done.
	type wave struct {
		id      uint64
		left    int // requests not issued
		pending int // requests issued and not done
	}
	waves := make([][wavefronts]wave, taskCUs)
	stopping := false
	for cu := range taskCUs {
		for slot := range wavefronts {
			push(taskAct{t: uint64(slot) * 5 * ns, req: -1, cu: int16(cu), slot: int8(slot)})
		}
	}
	issue := func(cu int, wv uint64, t uint64) {
		var ri int32
		if n := len(free); n > 0 {
			ri, free = free[n-1], free[:n-1]
		} else {
			reqs = append(reqs, taskReq{})
			ri = int32(len(reqs) - 1)
		}
		r := &reqs[ri]
		*r = taskReq{cu: cu, wave: wv, what: "ReadReq"}
		if rng.Next()%10 < 3 {
			r.what = "WriteReq"
		}
		r.hitL1 = rng.Next()%100 < 65
		r.hitL2 = rng.Next()%2 == 0
		r.pFirst, r.qFirst = rng.Next()%2 == 0, rng.Next()%2 == 0
		if rng.Next()%10 < 4 {
			r.l2 = 0 // a hot bank
		} else {
			r.l2 = int(rng.Next() % taskL2s)
		}
		r.dram = r.l2 % taskDRAMs
		r.dramLat = (100 + rng.Next()%201) * ns
		r.r = id()
		start(cuComp(cu), r.r, wv, "req_out", r.what, s.Comps[cuComp(cu)].reqOut, t)
		push(taskAct{t: t + ns, req: ri, step: 1})
	}
	done := func(ri int32, t uint64) {
		r := &reqs[ri]
		end(cuComp(r.cu), r.r, t)
		w := &waves[r.cu]
		for slot := range w {
			if w[slot].id == r.wave {
				w[slot].pending--
				if w[slot].pending == 0 && w[slot].left == 0 {
					push(taskAct{t: t, req: -1, step: 1, cu: int16(r.cu), slot: int8(slot)})
				}
			}
		}
		free = append(free, ri)
	}
	step := func(a taskAct) {
		t := a.t
		if a.req < 0 {
			w := &waves[a.cu][a.slot]
			comp := cuComp(int(a.cu))
			switch {
			case a.step == 0 && w.id == 0: // a new wavefront
				if stopping {
					return
				}
				w.id, w.left, w.pending = id(), requestsPerWave, 0
				start(comp, w.id, 0, "wavefront", "Wavefront", s.Comps[comp].Name, t)
				push(taskAct{t: t, req: -1, step: 0, cu: a.cu, slot: a.slot})
			case a.step == 0: // its next request; the last one to finish ends it (done)
				if stopping && w.left > 0 {
					w.left = 0
					if w.pending == 0 {
						push(taskAct{t: t, req: -1, step: 1, cu: a.cu, slot: a.slot})
					}
				}
				if w.left > 0 {
					w.left--
					w.pending++
					issue(int(a.cu), w.id, t)
					push(taskAct{t: t + (8+rng.Next()%17)*ns, req: -1, step: 0, cu: a.cu, slot: a.slot})
				}
			case a.step == 1 && w.id != 0: // done
				end(comp, w.id, t)
				*w = wave{}
				push(taskAct{t: t + ns, req: -1, step: 0, cu: a.cu, slot: a.slot})
			}
			return
		}
		r := &reqs[a.req]
		l1, l2, dr := l1Comp(r.cu), l2Comp(r.l2), dramComp(r.dram)
		next := func(dt uint64, st uint8) { push(taskAct{t: t + dt, req: a.req, step: st}) }
		switch a.step {
		case 1: // at the L1: its pipeline subtask and the request task, one before the other
			r.i, r.p = id(), id()
			c := &s.Comps[l1]
			if r.pFirst {
				start(l1, r.p, r.i, "pipeline", c.pipeline, c.pipeline, t)
				start(l1, r.i, r.r, "req_in", r.what, c.reqIn, t)
			} else {
				start(l1, r.i, r.r, "req_in", r.what, c.reqIn, t)
				start(l1, r.p, r.i, "pipeline", c.pipeline, c.pipeline, t)
			}
			next(2*ns, 2)
		case 2:
			end(l1, r.p, t)
			milestone(l1, r.i, "work", "pipeline", t)
			if r.hitL1 {
				tag(l1, r.i, "read-hit", t)
				next(ns, 3)
			} else {
				tag(l1, r.i, "read-miss", t)
				r.o = id()
				start(l1, r.o, r.i, "req_out", r.what, s.Comps[l1].reqOut, t)
				next(2*ns, 5)
			}
		case 3: // an L1 hit
			end(l1, r.i, t)
			next(ns, 4)
		case 4:
			done(a.req, t)
		case 5: // at the L2
			r.j, r.q = id(), id()
			c := &s.Comps[l2]
			if r.qFirst {
				start(l2, r.q, r.j, "pipeline", c.pipeline, c.pipeline, t)
				start(l2, r.j, r.o, "req_in", r.what, c.reqIn, t)
			} else {
				start(l2, r.j, r.o, "req_in", r.what, c.reqIn, t)
				start(l2, r.q, r.j, "pipeline", c.pipeline, c.pipeline, t)
			}
			next(3*ns, 6)
		case 6:
			end(l2, r.q, t)
			milestone(l2, r.j, "work", "pipeline", t)
			if r.hitL2 {
				tag(l2, r.j, "read-hit", t)
				next(3*ns, 9)
			} else {
				tag(l2, r.j, "read-miss", t)
				r.o2 = id()
				start(l2, r.o2, r.j, "req_out", r.what, s.Comps[l2].reqOut, t)
				next(2*ns, 7)
			}
		case 7: // at the DRAM
			r.k = id()
			start(dr, r.k, r.o2, "req_in", r.what, s.Comps[dr].reqIn, t)
			next(r.dramLat/2, 71)
		case 71:
			milestone(dr, r.k, "queue", "bank", t)
			next(r.dramLat-r.dramLat/2, 8)
		case 8:
			end(dr, r.k, t)
			next(2*ns, 81)
		case 81:
			end(l2, r.o2, t)
			milestone(l2, r.j, "data", "dram", t)
			next(ns, 9)
		case 9: // the L2 responds
			end(l2, r.j, t)
			next(2*ns, 10)
		case 10:
			end(l1, r.o, t)
			next(ns, 3)
		}
	}
	// The engine: one window of simulated time at a time, its hook calls
	// made by every goroutine in parallel, each for its components.
	work := make([]chan []hookCall, goroutines)
	var wg sync.WaitGroup
	for g := range work {
		work[g] = make(chan []hookCall)
		go func() {
			for calls := range work[g] {
				for i := range calls {
					h := &calls[i]
					switch h.kind {
					case hookStart:
						tr.StartTask(int(h.comp), TaskStart{ID: h.id, ParentID: h.parent, Kind: h.a, What: h.b, Location: h.c, Time: h.time})
					case hookEnd:
						tr.EndTask(int(h.comp), TaskEnd{ID: h.id, Time: h.time})
					case hookTag:
						tr.AddTaskTag(int(h.comp), TaskTag{TaskID: h.id, What: h.b, Time: h.time})
					case hookMilestone:
						tr.AddMilestone(int(h.comp), Milestone{TaskID: h.id, Kind: h.a, What: h.b, Time: h.time})
					}
				}
				wg.Done()
			}
		}()
	}
	// The actions come in time order, so each component's calls do.
	for window := uint64(taskWindow); len(heap) > 0; window += taskWindow {
		for len(heap) > 0 && heap[0].Key < window {
			step(heap.Pop().Value)
		}
		if made >= events {
			stopping = true
		}
		wg.Add(goroutines)
		for g := range work {
			work[g] <- batches[g]
		}
		wg.Wait()
		for g := range batches {
			batches[g] = batches[g][:0]
		}
	}
	for g := range work {
		close(work[g])
	}
	return made
}
