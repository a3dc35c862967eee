//go:build unix

package bench

import "syscall"

// processCPU returns the CPU time (user + system) the process has used so
// far, in nanoseconds: the emit, the compression workers, the writer and
// the runtime together, which is what a simulation sharing its machine
// with others pays for tracing.
func processCPU() (int64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
