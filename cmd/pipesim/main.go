// Command pipesim runs the example pipeline simulator (internal/pipesim)
// and writes its trace: spans per stage, one flow per instruction, a ROB
// occupancy counter. `trace_reader stats` on the result reports the stage
// latencies the simulator defines, and `trace_reader export` shows the
// instructions flowing through the pipeline in Perfetto.
//
//	pipesim [-n INSTRUCTIONS] -o FILE
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
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: pipesim [-n INSTRUCTIONS] -o FILE")
		os.Exit(2)
	}
	t, err := chronon.Create(*out, chronon.WithSimulationName("pipesim"), chronon.WithFlushInterval(0))
	if err == nil {
		err = pipesim.Run(t, *n)
		if cerr := t.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipesim:", err)
		os.Exit(1)
	}
}
