package main

import (
	"fmt"
	"io"
	"runtime/metrics"
)

// cpuClasses are the runtime's estimates of where the process's CPU time
// (GOMAXPROCS x wall time) went. Idle is the one that tells whether a run is
// limited by work (idle near 0) or by waiting (producer and workers
// blocked on each other, scheduling latency).
var cpuClasses = []string{
	"/cpu/classes/user:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/scavenge/total:cpu-seconds",
	"/cpu/classes/idle:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
}

// printCPUStats prints the CPU classes accumulated so far.
func printCPUStats(w io.Writer) {
	s := make([]metrics.Sample, len(cpuClasses))
	for i, n := range cpuClasses {
		s[i].Name = n
	}
	metrics.Read(s)
	fmt.Fprint(w, "tracegen: cpu seconds:")
	for _, x := range s {
		if x.Value.Kind() == metrics.KindFloat64 {
			name := x.Name[len("/cpu/classes/"):]
			fmt.Fprintf(w, " %s=%.3f", name[:len(name)-len(":cpu-seconds")], x.Value.Float64())
		}
	}
	fmt.Fprintln(w)
}
