package chronon_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Task tracing, as a hook-driven engine does it: spans named by the task's
// id (they overlap and end in any order), each with its parent's id, typed
// arguments on the begin (interned strings here), tags on the task, times
// in picoseconds.
var (
	exReqIn = chronon.MustAsyncSpan2[chronon.Symbol, chronon.Symbol]("example.req_in", "what={} where={}")
	exSub   = chronon.MustAsyncSpan("example.pipeline")
	exTag   = chronon.MustFormat2[uint64, chronon.Symbol]("example tag task={} what={}", chronon.WithSpanID(0))
)

// exampleTrace creates a trace in a temporary directory, runs record on it
// and returns its path (and a cleanup).
func exampleTrace(record func(t *chronon.Tracer), opts ...chronon.Option) (string, func()) {
	dir, err := os.MkdirTemp("", "chronon-example")
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "run.ctrace")
	t, err := chronon.Create(path, append([]chronon.Option{chronon.WithAutoMetadata(false)}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	record(t)
	if err := t.Close(); err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

func ExampleAsyncSpan2() {
	path, done := exampleTrace(func(t *chronon.Tracer) {
		l2, err := t.NewUnit("gpu.l2")
		if err != nil {
			log.Fatal(err)
		}
		read, where := t.Intern("ReadReq"), t.Intern("gpu.l2.req_in")
		// Task 11's pipeline subtask starts first, in the same picosecond:
		// readers still find its parent.
		exSub.Begin(l2, 1000, 12, 11)
		exReqIn.Begin(l2, 1000, 11, 7, read, where) // parent 7: a task of another unit, not traced here
		exReqIn.Begin(l2, 2000, 21, 7, read, where) // overlaps task 11
		exTag.Emit(l2, 2500, 11, t.Intern("read-hit"))
		exSub.End(l2, 3000, 12)
		exReqIn.End(l2, 4000, 21) // ends before task 11
		exReqIn.End(l2, 6000, 11)
	}, chronon.WithTimeBase(chronon.Picoseconds))
	defer done()

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for ev := range r.Events(mmapio.Query{}) {
		fmt.Printf("%d ps %s\n", ev.Cycle, ev.Message())
	}
	rep, err := analysis.Stats(r, mmapio.Query{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range rep.Spans {
		fmt.Printf("%s: %d spans, %d-%d ps\n", s.Span, s.Count, s.Min, s.Max)
	}
	fmt.Println("parents not found:", rep.Notes["parents_not_found"])
	// Output:
	// 1000 ps example.pipeline begin id=12 parent=11
	// 1000 ps example.req_in begin id=11 parent=7 what=ReadReq where=gpu.l2.req_in
	// 2000 ps example.req_in begin id=21 parent=7 what=ReadReq where=gpu.l2.req_in
	// 2500 ps example tag task=11 what=read-hit
	// 3000 ps example.pipeline end id=12
	// 4000 ps example.req_in end id=21
	// 6000 ps example.req_in end id=11
	// example.pipeline: 1 spans, 2000-2000 ps
	// example.req_in: 2 spans, 2000-5000 ps
	// parents not found: 2
}

// Parent ids make trees: stats reports each request's fan-out, depth and
// critical path (the chain of sub-requests that decided when it ended).
func ExampleWithParent() {
	path, done := exampleTrace(func(t *chronon.Tracer) {
		cu, _ := t.NewUnit("cu")
		l2, _ := t.NewUnit("l2")
		dram, _ := t.NewUnit("dram")
		req, sub := chronon.MustAsyncSpan("example.request"), chronon.MustAsyncSpan("example.access")
		req.Begin(cu, 0, 1, 0)
		sub.Begin(l2, 10, 2, 1) // a child of 1
		sub.Begin(l2, 12, 3, 1) // another
		sub.Begin(dram, 20, 4, 3)
		sub.End(l2, 30, 2)
		sub.End(dram, 70, 4)
		sub.End(l2, 80, 3)
		req.End(cu, 90, 1)
	})
	defer done()
	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	rep, err := analysis.Stats(r, mmapio.Query{})
	if err != nil {
		log.Fatal(err)
	}
	tr := rep.Trees[0]
	fmt.Printf("%s: %d request, %d spans, depth %d, latency %d\n", tr.Root, tr.Trees, tr.Spans.Max, tr.Depth.Max, tr.Latency.Max)
	for _, p := range tr.Slowest {
		fmt.Printf("  %d-%d %s %s\n", p.Start, p.End, p.Unit, p.Span)
	}
	// Output:
	// example.request: 1 request, 4 spans, depth 2, latency 90
	//   0-10 cu example.request
	//   10-12 l2 example.access
	//   12-20 l2 example.access
	//   20-70 dram example.access
	//   70-80 l2 example.access
	//   80-90 cu example.request
}

// Strings that repeat in every event (kinds, names, locations) are stored
// once: an argument of type Symbol is 4 bytes, and readers print the
// string.
func ExampleTracer_Intern() {
	kind := chronon.MustFormat2[chronon.Symbol, uint64]("example msg kind={} bytes={}")
	path, done := exampleTrace(func(t *chronon.Tracer) {
		u, _ := t.NewUnit("net.router0")
		for i := uint64(0); i < 3; i++ {
			kind.Emit(u, i, t.Intern("WriteReq"), 64*i) // a lookup without a lock or an allocation
		}
		fmt.Println("symbols:", t.Stats().Symbols)
	})
	defer done()
	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for ev := range r.Events(mmapio.Query{}.WithCycles(2, 2)) {
		fmt.Println(ev.Message())
	}
	// Output:
	// symbols: 1
	// example msg kind=WriteReq bytes=128
}

// A time base says how long a cycle lasts: exporters draw real time and
// stats gives rates per second. A unit may run on a clock of its own.
func ExampleWithTimeBase() {
	tick := chronon.MustFormat0("example tick")
	path, done := exampleTrace(func(t *chronon.Tracer) {
		u, _ := t.NewUnit("core0")
		for c := uint64(0); c < 3000; c++ {
			tick.Emit(u, c)
		}
	}, chronon.WithTimeBase(chronon.Hz(3_000_000_000)))
	defer done()
	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	rep, err := analysis.Stats(r, mmapio.Query{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d cycles of %s = %.0f ns, %.3g events/s\n", rep.Window.Cycles, rep.Window.TimeBase, rep.Window.Seconds*1e9, rep.Units[0].PerSecond)
	// Output:
	// 3000 cycles of 1/3000000000 s = 1000 ns, 3e+09 events/s
}

// Registering the same format again (the same text, types, kind, roles,
// category and name) returns the same format: an adapter may register per
// component or per run.
func ExampleNewFormat1_sameRegistration() {
	a := chronon.MustFormat1[uint32]("example queue depth={}")
	b := chronon.MustFormat1[uint32]("example queue depth={}")
	c := chronon.MustFormat1[uint32]("example queue depth={}", chronon.WithName("depth"))
	fmt.Println(a.ID() == b.ID(), a.ID() == c.ID())
	// Output:
	// true false
}

// An out-of-order core with the stage helper: each instruction carries an
// Inst; Enter closes the stage it was in (a complete span on its flow);
// Retire and Squash end it. Instruction sequence numbers start at 0: the
// flow is SeqFlow(seq).
func ExampleStages() {
	stages := chronon.MustStages("example.fetch", "example.decode", "example.execute", "example.commit")
	path, done := exampleTrace(func(t *chronon.Tracer) {
		cpu, _ := t.NewUnit("cpu0")
		rob := chronon.MustCounter("example.rob").OnChange(cpu) // a sample per change, not per cycle
		in := stages.Start(0)
		for c, stage := range []int{0, 1, 1, 2, 2, 2, 3} {
			if stage != in.Stage() {
				stages.Enter(cpu, uint64(c), &in, stage)
			}
			rob.Sample(uint64(c), int64(min(stage, 2)))
		}
		stages.Retire(cpu, 7, &in)
	})
	defer done()
	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for ev := range r.Events(mmapio.Query{}) {
		fmt.Printf("%d %s\n", ev.Cycle, ev.Message())
	}
	// Output:
	// 0 example.rob=0
	// 0 example.fetch lane=0 flow=1 dur=1
	// 1 example.rob=1
	// 1 example.decode lane=0 flow=1 dur=2
	// 3 example.rob=2
	// 3 example.execute lane=0 flow=1 dur=3
	// 6 example.commit lane=0 flow=1 dur=1
	// 7 retire flow=1
}
