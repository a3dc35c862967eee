package analysis_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Stats summarizes a trace: here the latency from fetch to execute along
// each instruction's flow and the duration of the execute spans.
func ExampleStats() {
	dir, _ := os.MkdirTemp("", "stats")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	if err != nil {
		log.Fatal(err)
	}
	fetch, _ := tr.NewUnit("core0.fetch")
	exec, _ := tr.NewUnit("core0.exec")
	stage := chronon.MustSpan("stage")
	for seq := uint64(1); seq <= 4; seq++ {
		stage.Complete(fetch, seq, 1, 0, seq)          // fetch takes one cycle
		stage.Complete(exec, seq+1, 1+seq%2*2, 0, seq) // execute 1 or 3
	}
	if err := tr.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	rep, err := analysis.Stats(r, mmapio.Query{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range rep.Stages {
		fmt.Printf("%s -> %s: %d flows, %d cycles\n", s.From, s.To, s.Count, s.Max)
	}
	for _, s := range rep.Spans {
		fmt.Printf("%s %s: n=%d min=%d mean=%g max=%d\n", s.Unit, s.Span, s.Count, s.Min, s.Mean, s.Max)
	}
	// Output:
	// core0.fetch -> core0.exec: 4 flows, 1 cycles
	// core0.exec stage: n=4 min=1 mean=2 max=3
	// core0.fetch stage: n=4 min=1 mean=1 max=1
}

// A progress function sees how many cycles of the window are done.
func ExampleWithProgress() {
	dir, _ := os.MkdirTemp("", "stats")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	if err != nil {
		log.Fatal(err)
	}
	u, _ := tr.NewUnit("core0")
	tick := chronon.MustFormat1[uint64]("tick {}")
	for c := uint64(0); c < 200_000; c++ {
		tick.Emit(u, c, c)
	}
	if err := tr.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	_, err = analysis.Stats(r, mmapio.Query{}.WithCycles(100_000, 300_000),
		analysis.WithProgress(func(done, total uint64) { fmt.Printf("%d/%d\n", done, total) }))
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// 65536/100000
	// 100000/100000
}
