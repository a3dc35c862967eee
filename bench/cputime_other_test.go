//go:build !unix

package bench

// processCPU is not measured here: the cpu-ns/event metric is left out.
func processCPU() (int64, bool) { return 0, false }
