// Command pipesim runs the example pipeline simulator (internal/pipesim)
// and writes its trace: spans per stage, one flow per instruction, a ROB
// occupancy counter. `trace_reader stats` on the result reports the stage
// latencies the simulator defines, and `trace_reader export` shows the
// instructions flowing through the pipeline in Perfetto. With -hazards it
// adds fetch labels, stalls, squashes and register dependencies
// (pipesim.RunHazards), what the Kanata export shows in Konata.
//
//	pipesim [-n INSTRUCTIONS] [-hazards] [-unit-id-base FIRST] -o FILE
//
// Exit status: 0 ok, 1 the trace could not be written (no file is left),
// 2 usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

const usage = "usage: pipesim [-n INSTRUCTIONS] [-hazards] [-unit-id-base FIRST] -o FILE"

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipesim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Uint64("n", 1000, "instructions to simulate")
	out := fs.String("o", "", "output .ctrace file")
	hazards := fs.Bool("hazards", false, "add fetch labels, stalls, squashes (wrong-path instructions) and register dependencies")
	idBase := fs.Uint("unit-id-base", 1, "first unit id (disjoint ids per rank let trace_reader merge copy the files' blocks)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// Run numbers a unit per stage and the ROB; RunHazards has no ROB unit.
	units := uint(len(pipesim.Stages)) + 1
	if *hazards {
		units--
	}
	if *out == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	if *idBase < 1 || *idBase+units-1 > 65535 {
		// Checked here, not by the tracer on the unit that overflows: that
		// one would fail the run after the file is created.
		fmt.Fprintf(stderr, "pipesim: -unit-id-base %d: the %d units are numbered from it, so it must be 1..%d\n%s\n",
			*idBase, units, 65536-units, usage)
		return 2
	}
	if err := write(*out, *n, *hazards, uint16(*idBase)); err != nil {
		fmt.Fprintln(stderr, "pipesim:", err)
		return 1
	}
	return 0
}

// write runs the simulation into path. A run that fails after creating the
// file removes it: what is left would read as a valid, partial trace.
func write(path string, n uint64, hazards bool, idBase uint16) error {
	t, err := chronon.Create(path, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0),
		chronon.WithUnitIDBase(idBase))
	if err != nil {
		return err
	}
	if hazards {
		err = pipesim.RunHazards(t, n)
	} else {
		err = pipesim.Run(t, n)
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() { // -o /dev/null stays
			os.Remove(path)
		}
	}
	return err
}
