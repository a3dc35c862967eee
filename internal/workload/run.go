package workload

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Result summarizes a workload run.
type Result struct {
	FileBytes int64
	Written   uint64
	Dropped   uint64
}

type runner func(t *chronon.Tracer, events, units int, seed uint64, mem SimMemory) error

var runners = map[string]runner{
	"w1":          noMemory(runW1),
	"mixed":       noMemory(runMixed),
	"growing":     noMemory(runGrowing),
	"pipeline":    noMemory(runPipeline),
	"tasks":       runTasks,
	"tasks-mutex": runTasksMutex,
	"tasks-lanes": runTasksLanes,
	"tasks-none":  runTasksNone,
}

// noMemory adapts a workload that has no simulation memory of its own.
func noMemory(f func(t *chronon.Tracer, events, units int, seed uint64) error) runner {
	return func(t *chronon.Tracer, events, units int, seed uint64, _ SimMemory) error {
		return f(t, events, units, seed)
	}
}

// runnerOptions are options a workload's tracer needs besides the
// caller's: the task workloads' times are picoseconds (the lanes adapter
// could only say so in metadata, which nothing reads).
var runnerOptions = map[string][]chronon.Option{
	"tasks":       {chronon.WithTimeBase(chronon.Picoseconds)},
	"tasks-mutex": {chronon.WithTimeBase(chronon.Picoseconds)},
	"tasks-lanes": {chronon.WithMetadata("ps_per_cycle", "1")},
}

// Names lists the workloads.
func Names() string {
	names := make([]string, 0, len(runners))
	for n := range runners {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Run writes workload name to path and closes the tracer.
func Run(name, path string, events, units int, seed uint64, opts ...chronon.Option) (Result, error) {
	return RunWith(name, path, events, units, seed, SimMemory{}, opts...)
}

// RunWith is Run with the simulation's own memory (the task workloads';
// the others have none).
func RunWith(name, path string, events, units int, seed uint64, mem SimMemory, opts ...chronon.Option) (Result, error) {
	run, ok := runners[name]
	if !ok {
		return Result{}, fmt.Errorf("unknown workload %q (have %s)", name, Names())
	}
	t, err := chronon.Create(path, append(opts[:len(opts):len(opts)], runnerOptions[name]...)...)
	if err != nil {
		return Result{}, err
	}
	if err := run(t, events, units, seed, mem); err != nil {
		t.Close()
		removeFailed(path)
		return Result{}, err
	}
	if err := t.Close(); err != nil {
		removeFailed(path)
		return Result{}, err
	}
	var res Result
	for _, u := range t.Stats().Units {
		res.Written += u.Written
		res.Dropped += u.Dropped + u.Lost
	}
	fi, err := os.Stat(path)
	if err != nil {
		return res, err
	}
	res.FileBytes = fi.Size()
	return res, nil
}

func runW1(t *chronon.Tracer, events, units int, seed uint64) error {
	w, err := RegisterW1()
	if err != nil {
		return err
	}
	us, err := NewW1Units(t, units)
	if err != nil {
		return err
	}
	st := NewW1State(seed)
	w.Emit(us, &st, 0, events)
	return nil
}

// removeFailed removes the output of a run that failed after creating it:
// what is left reads as a valid, partial (or empty) trace, which would
// pass for the run's. Only a regular file: -o /dev/null stays.
func removeFailed(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		os.Remove(path)
	}
}
