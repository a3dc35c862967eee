// Command pipesim runs the example pipeline simulator (internal/pipesim)
// and writes its trace: spans per stage, one flow per instruction, a ROB
// occupancy counter. `trace_reader stats` on the result reports the stage
// latencies the simulator defines, and `trace_reader export` shows the
// instructions flowing through the pipeline in Perfetto. With -hazards it
// adds fetch labels, stalls, squashes and register dependencies
// (pipesim.RunHazards), what the Kanata export shows in Konata.
//
//	pipesim [-n INSTRUCTIONS] [-hazards] [-unit-id-base FIRST] -o FILE
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

func main() {
	n := flag.Uint64("n", 1000, "instructions to simulate")
	out := flag.String("o", "", "output .ctrace file")
	hazards := flag.Bool("hazards", false, "add fetch labels, stalls, squashes (wrong-path instructions) and register dependencies")
	idBase := flag.Uint("unit-id-base", 1, "first unit id (disjoint ids per rank let trace_reader merge copy the files' blocks)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 || *idBase < 1 || *idBase > 65535 {
		fmt.Fprintln(os.Stderr, "usage: pipesim [-n INSTRUCTIONS] [-hazards] [-unit-id-base 1..65535] -o FILE")
		os.Exit(2)
	}
	t, err := chronon.Create(*out, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0),
		chronon.WithUnitIDBase(uint16(*idBase)))
	if err == nil {
		if *hazards {
			err = pipesim.RunHazards(t, *n)
		} else {
			err = pipesim.Run(t, *n)
		}
		if cerr := t.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipesim:", err)
		os.Exit(1)
	}
}
