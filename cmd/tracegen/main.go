// Command tracegen writes synthetic workloads as .ctrace files and reports
// how fast it wrote them.
//
//	tracegen --workload w1 --events N --units U [--seed S] [--level L]
//	         [--block-size B] [--ring-budget BYTES] [--no-compress] [--unit-id-base FIRST] -o FILE
//
// It prints events/s and bytes/event (per event emitted) on stderr, and the
// events written when a selection (CHRONON_TRACE) or drops kept fewer.
// tracegen --help lists the options, tracegen --version the build.
// Exit status: 0 ok, 1 the trace could not be written, 2 usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/cli"
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
	ringBudget int // defaultRingBudget: the writer's default
	noCompress bool
	policy     string
	out        string
	cpuProfile string
	execTrace  string
	cpuStats   bool
	unitIDBase uint
	simHeap    int
	simGarbage int
	help       bool
	version    bool
}

type flag = cli.Flag[*options]

// defaultRingBudget marks --ring-budget not given: the writer's default.
const defaultRingBudget = math.MinInt

func intFlag(names []string, arg, help string, dst func(*options) *int) *flag {
	return &flag{Option: cli.Option{Names: names, Arg: arg, Help: help}, Set: func(o *options, v string) error {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return fmt.Errorf("%s %q: want a whole number", names[len(names)-1], v)
		}
		*dst(o) = int(n)
		return nil
	}}
}

func stringFlag(names []string, arg, help string, dst func(*options) *string) *flag {
	return &flag{Option: cli.Option{Names: names, Arg: arg, Help: help}, Set: func(o *options, v string) error {
		*dst(o) = v
		return nil
	}}
}

func switchFlag(names []string, help string, dst func(*options) *bool) *flag {
	return &flag{Option: cli.Option{Names: names, Help: help}, Set: func(o *options, _ string) error {
		*dst(o) = true
		return nil
	}}
}

func withFiles(f *flag) *flag { f.Complete.Files = "*"; return f }

func withWords(f *flag, words ...string) *flag { f.Complete.Words = words; return f }

var flags = []*flag{
	withWords(stringFlag([]string{"--workload"}, "NAME", "Workload: "+workload.Names()+" (default w1)", func(o *options) *string { return &o.workload }),
		strings.Split(workload.Names(), ", ")...),
	intFlag([]string{"--events"}, "N", "Number of events (default 1000000)", func(o *options) *int { return &o.events }),
	intFlag([]string{"--units"}, "U", "Number of units, 1..65535 (default 16)", func(o *options) *int { return &o.units }),
	{Option: cli.Option{Names: []string{"--seed"}, Arg: "S", Help: "PRNG seed (default 1)"}, Set: func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return fmt.Errorf("--seed %q: want a whole number", v)
		}
		o.seed = n
		return nil
	}},
	intFlag([]string{"--level"}, "L", fmt.Sprintf("Compression level, 0 = none, 1..22 (default %d)", chronon.LevelDefault), func(o *options) *int { return &o.level }),
	intFlag([]string{"--block-size"}, "B", fmt.Sprintf("Block size in bytes, a power of two, 4096..1048576 (default %d)", chronon.DefaultBlockSize), func(o *options) *int { return &o.blockSize }),
	intFlag([]string{"--ring-budget"}, "BYTES", fmt.Sprintf("Memory of all units' rings beyond their first chunks (default %d); past it rings seal smaller chunks, smaller blocks; 0: no bound, every busy unit fills whole blocks", chronon.DefaultRingBudget), func(o *options) *int { return &o.ringBudget }),
	switchFlag([]string{"--no-compress"}, "Store blocks raw", func(o *options) *bool { return &o.noCompress }),
	{Option: cli.Option{Names: []string{"--unit-id-base"}, Arg: "FIRST", Help: "First unit id (rank r of units U: 1+r*U, so a merge of the rank files copies their blocks; default 1)"},
		Set: func(o *options, v string) error {
			n, err := strconv.ParseUint(v, 0, strconv.IntSize)
			if err != nil {
				return fmt.Errorf("--unit-id-base %q: want a whole number", v)
			}
			o.unitIDBase = uint(n)
			return nil
		}},
	intFlag([]string{"--sim-heap"}, "MIB", fmt.Sprintf("Task workloads: the simulation's own live heap in MiB, 0 = none (default %d, with --sim-garbage: an untraced run about as large as Akita's 34 MB scenario)", workload.AkitaMemory.LiveMiB), func(o *options) *int { return &o.simHeap }),
	intFlag([]string{"--sim-garbage"}, "BYTES", fmt.Sprintf("Task workloads: bytes the simulation allocates and drops per hook event, 0 = none (default %d)", workload.AkitaMemory.GarbagePerEvent), func(o *options) *int { return &o.simGarbage }),
	withWords(stringFlag([]string{"--policy"}, "P", "Backpressure policy: block (default) or drop", func(o *options) *string { return &o.policy }), "block", "drop"),
	withFiles(stringFlag([]string{"-o", "--output"}, "FILE", "The trace to write (required)", func(o *options) *string { return &o.out })),
	withFiles(stringFlag([]string{"--cpuprofile"}, "FILE", "Write a CPU profile (go tool pprof) to FILE", func(o *options) *string { return &o.cpuProfile })),
	withFiles(stringFlag([]string{"--exectrace"}, "FILE", "Write a Go execution trace (go tool trace) to FILE", func(o *options) *string { return &o.execTrace })),
	switchFlag([]string{"--cpu-stats"}, "Print the Go runtime's CPU time classes (user, gc, idle) at the end", func(o *options) *bool { return &o.cpuStats }),
	switchFlag([]string{"-h", "--help"}, "Show this help", func(o *options) *bool { return &o.help }),
	switchFlag([]string{"--version"}, "Print the version (also: tracegen version)", func(o *options) *bool { return &o.version }),
}

// tool describes tracegen for internal/cli (help, manual page, docs/cli.md).
func tool() *cli.Tool {
	return &cli.Tool{
		Name:     "tracegen",
		Summary:  "write synthetic workloads as .ctrace files and report how fast",
		Synopsis: "[options] -o FILE",
		Description: "tracegen writes a synthetic workload (w1: the benchmark workload, 16 units\n" +
			"of fetch and memory events) with the Go runtime and prints on stderr how fast:\n" +
			"events/s and bytes/event (per event emitted), the events written when a\n" +
			"selection (CHRONON_TRACE) or drops kept fewer, the events dropped.\n\n" +
			"The options of the first releases, Go flag's single-dash spellings (-events,\n" +
			"-o=FILE), still work, with a note on stderr, until the next release.",
		Options: cli.Options(flags),
		Exit:    "0 ok; 1 the trace could not be written; 2 usage.",
	}
}

// parse reads the command line. done is set when it has been answered
// (--help, --version): nothing is written then.
func parse(args []string, stdout, stderr io.Writer) (o options, done bool, err error) {
	o = options{workload: "w1", events: 1_000_000, units: 16, seed: 1, level: chronon.LevelDefault,
		blockSize: chronon.DefaultBlockSize, ringBudget: defaultRingBudget, policy: "block", unitIDBase: 1,
		simHeap: workload.AkitaMemory.LiveMiB, simGarbage: workload.AkitaMemory.GarbagePerEvent}
	operands, err := cli.ParseFlags(&o, args, flags, func(used, instead string) {
		fmt.Fprintln(stderr, cli.Deprecated("tracegen", used, instead))
	})
	if err != nil {
		return o, false, err
	}
	if len(operands) == 1 && (operands[0] == "help" || operands[0] == "version") {
		o.help, o.version, operands = operands[0] == "help", operands[0] == "version", nil
	}
	switch {
	case len(operands) != 0:
		return o, false, fmt.Errorf("unexpected argument %q", operands[0])
	case o.help:
		cli.WriteHelp(stdout, tool())
		return o, true, nil
	case o.version:
		_, err := io.WriteString(stdout, cli.BuildVersion("tracegen"))
		return o, true, err
	case o.out == "":
		return o, false, errors.New("-o FILE is required")
	case o.events < 0:
		return o, false, errors.New("--events must not be negative")
	case o.units < 1 || o.units > 65535:
		return o, false, errors.New("--units must be 1..65535")
	case o.unitIDBase < 1 || o.unitIDBase > 65535:
		return o, false, errors.New("--unit-id-base must be 1..65535")
	case o.unitIDBase+uint(o.units)-1 > 65535:
		// Checked here, not by the tracer on the unit that overflows: that
		// one would fail the run after the file is created.
		return o, false, fmt.Errorf("--unit-id-base %d with --units %d numbers units up to %d, past 65535: with %d units, --unit-id-base must be 1..%d",
			o.unitIDBase, o.units, o.unitIDBase+uint(o.units)-1, o.units, 65536-o.units)
	case o.ringBudget != defaultRingBudget && (o.ringBudget < 0 || o.ringBudget > 0 && o.ringBudget < 64<<10):
		return o, false, fmt.Errorf("--ring-budget %d: want 0 (no bound) or at least 65536 bytes", o.ringBudget)
	case o.simHeap < 0 || o.simHeap > 1<<16:
		return o, false, errors.New("--sim-heap must be 0..65536 (MiB)")
	case o.simGarbage < 0 || o.simGarbage > 1<<20:
		return o, false, errors.New("--sim-garbage must be 0..1048576 (bytes)")
	case o.policy != "block" && o.policy != "drop":
		return o, false, errors.New("--policy must be block or drop")
	}
	return o, false, nil
}

// run runs the command line, its help and version to standard output.
func run(args []string, stderr io.Writer) int { return command(args, os.Stdout, stderr) }

func command(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--help-man" {
		cli.WriteMan(stdout, tool(), cli.Source(), cli.Date())
		return 0
	}
	if len(args) == 1 && args[0] == "--help-markdown" {
		cli.WriteMarkdown(stdout, tool())
		return 0
	}
	o, done, err := parse(args, stdout, stderr)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "tracegen: %s\n%s\n", err, cli.Hint(tool(), ""))
		return 2
	case done:
		return 0
	}
	opts := []chronon.Option{
		chronon.WithBlockSize(o.blockSize),
		chronon.WithLevel(o.level),
		chronon.WithSimulationName(o.workload),
		chronon.WithUnitIDBase(uint16(o.unitIDBase)),
	}
	if o.ringBudget != defaultRingBudget {
		opts = append(opts, chronon.WithRingBudget(o.ringBudget))
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
	res, err := workload.RunWith(o.workload, o.out, o.events, o.units, o.seed,
		workload.SimMemory{LiveMiB: o.simHeap, GarbagePerEvent: o.simGarbage}, opts...)
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
