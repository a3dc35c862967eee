package workload

import "testing"

// nopTracer takes the hook events and keeps nothing: the engine's own cost.
type nopTracer struct{}

func (nopTracer) StartTask(int, TaskStart)    {}
func (nopTracer) EndTask(int, TaskEnd)        {}
func (nopTracer) AddTaskTag(int, TaskTag)     {}
func (nopTracer) AddMilestone(int, Milestone) {}

// BenchmarkTaskSimRun runs the Akita stand-in untraced on one goroutine:
// the cost of the simulation (its queue of steps included) that a traced
// run's figures are measured against.
func BenchmarkTaskSimRun(b *testing.B) {
	const events = 100_000
	b.ReportAllocs()
	made := 0
	for range b.N {
		made += NewTaskSim(7).Run(nopTracer{}, events, 1)
	}
	b.ReportMetric(float64(made)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
