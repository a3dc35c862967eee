package main

import (
	"errors"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts a CPU profile and/or an execution trace, for finding
// where the writer spends its time; the returned stop ends both and reports
// the first error.
func startProfiles(cpuPath, tracePath string) (stop func() error, err error) {
	var files []*os.File
	var stops []func()
	stop = func() error {
		for _, s := range stops {
			s()
		}
		var errs []error
		for _, f := range files {
			errs = append(errs, f.Close())
		}
		stops, files = nil, nil
		return errors.Join(errs...)
	}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		if err := pprof.StartCPUProfile(f); err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, pprof.StopCPUProfile)
	}
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err != nil {
			stop()
			return nil, err
		}
		files = append(files, f)
		if err := trace.Start(f); err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, trace.Stop)
	}
	return stop, nil
}
