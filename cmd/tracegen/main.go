// Command tracegen writes synthetic workloads as .ctrace files and reports
// how fast it wrote them.
//
//	tracegen --workload w1 --events N --units U [--seed S] [--level L]
//	         [--block-size B] [--no-compress] [--unit-id-base FIRST] -o FILE
//
// It prints events/s and bytes/event (per event emitted) on stderr, and the
// events written when a selection (CHRONON_TRACE) or drops kept fewer.
// Exit status: 0 ok, 1 the trace could not be written, 2 usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

type options struct {
	workload   string
	events     int
	units      int
	seed       uint64
	level      int
	blockSize  int
	noCompress bool
	policy     string
	out        string
	cpuProfile string
	execTrace  string
	cpuStats   bool
	unitIDBase uint
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("tracegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.workload, "workload", "w1", "workload: "+workload.Names())
	fs.IntVar(&o.events, "events", 1_000_000, "number of events")
	fs.IntVar(&o.units, "units", 16, "number of units (1..65535)")
	fs.Uint64Var(&o.seed, "seed", 1, "PRNG seed")
	fs.IntVar(&o.level, "level", chronon.LevelDefault, "compression level (0 = none, 1..22)")
	fs.IntVar(&o.blockSize, "block-size", chronon.DefaultBlockSize, "block size in bytes (power of two, 4096..1048576)")
	fs.BoolVar(&o.noCompress, "no-compress", false, "store blocks raw")
	fs.UintVar(&o.unitIDBase, "unit-id-base", 1, "first unit id (rank r of units U: 1+r*U, so a merge of the rank files copies their blocks)")
	fs.StringVar(&o.policy, "policy", "block", "backpressure policy: block or drop")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (go tool pprof) to this file")
	fs.StringVar(&o.execTrace, "exectrace", "", "write a Go execution trace (go tool trace) to this file")
	fs.BoolVar(&o.cpuStats, "cpu-stats", false, "print the Go runtime's CPU time classes (user, gc, idle) at the end")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() != 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.out == "":
		return o, errors.New("-o FILE is required")
	case o.events < 0:
		return o, errors.New("--events must not be negative")
	case o.units < 1 || o.units > 65535:
		return o, errors.New("--units must be 1..65535")
	case o.unitIDBase < 1 || o.unitIDBase > 65535:
		return o, errors.New("--unit-id-base must be 1..65535")
	case o.unitIDBase+uint(o.units)-1 > 65535:
		// Checked here, not by the tracer on the unit that overflows: that
		// one would fail the run after the file is created.
		return o, fmt.Errorf("--unit-id-base %d with --units %d numbers units up to %d, past 65535: with %d units, --unit-id-base must be 1..%d",
			o.unitIDBase, o.units, o.unitIDBase+uint(o.units)-1, o.units, 65536-o.units)
	case o.policy != "block" && o.policy != "drop":
		return o, errors.New("--policy must be block or drop")
	}
	return o, nil
}

func run(args []string, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "tracegen:", err)
		}
		return 2
	}
	opts := []chronon.Option{
		chronon.WithBlockSize(o.blockSize),
		chronon.WithLevel(o.level),
		chronon.WithSimulationName(o.workload),
		chronon.WithUnitIDBase(uint16(o.unitIDBase)),
	}
	if o.noCompress {
		opts = append(opts, chronon.WithCompression(false))
	}
	if o.policy == "drop" {
		opts = append(opts, chronon.WithPolicy(chronon.Drop))
	}
	stop, err := startProfiles(o.cpuProfile, o.execTrace)
	if err != nil {
		fmt.Fprintln(stderr, "tracegen:", err)
		return 1
	}
	start := time.Now()
	res, err := workload.Run(o.workload, o.out, o.events, o.units, o.seed, opts...)
	if err != nil {
		stop()
		fmt.Fprintln(stderr, "tracegen:", err)
		return 1
	}
	el := time.Since(start)
	if err := stop(); err != nil {
		fmt.Fprintln(stderr, "tracegen:", err)
		return 1
	}
	// A record-time selection (CHRONON_TRACE) or drops write fewer events
	// than were emitted: say so, or the rates would look like the file's.
	written := ""
	if res.Written != uint64(o.events) {
		written = fmt.Sprintf(" (%d written)", res.Written)
	}
	fmt.Fprintf(stderr, "tracegen: %s: %d events%s, %d units -> %s: %d bytes in %.3fs: %.2f M events/s, %.3f bytes/event, %d dropped\n",
		o.workload, o.events, written, o.units, o.out, res.FileBytes, el.Seconds(),
		float64(o.events)/el.Seconds()/1e6, float64(res.FileBytes)/float64(max(o.events, 1)), res.Dropped)
	if o.cpuStats {
		printCPUStats(stderr)
	}
	return 0
}
