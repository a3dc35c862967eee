// Command pipesim runs the example pipeline simulator (internal/pipesim)
// and writes its trace: spans per stage, one flow per instruction, a ROB
// occupancy counter. `trace_reader stats` on the result reports the stage
// latencies the simulator defines, and `trace_reader export` shows the
// instructions flowing through the pipeline in Perfetto. With --hazards it
// adds fetch labels, stalls, squashes and register dependencies
// (pipesim.RunHazards), what the Kanata export shows in Konata.
//
//	pipesim [-n INSTRUCTIONS] [--hazards] [--unit-id-base FIRST] -o FILE
//
// pipesim --help lists the options, pipesim --version the build.
//
// Exit status: 0 ok, 1 the trace could not be written (no file is left),
// 2 usage.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/cli"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

type options struct {
	n             uint64
	out           string
	hazards       bool
	idBase        uint
	help, version bool
}

type flag = cli.Flag[*options]

var flags = []*flag{
	{Option: cli.Option{Names: []string{"-n", "--instructions"}, Arg: "N", Help: "Instructions to simulate (default 1000)"},
		Set: func(o *options, v string) (err error) {
			if o.n, err = strconv.ParseUint(v, 0, 64); err != nil {
				return fmt.Errorf("-n %q: want a number of instructions", v)
			}
			return nil
		}},
	{Option: cli.Option{Names: []string{"--hazards"}, Help: "Add fetch labels, stalls, squashes (wrong-path instructions) and register dependencies"},
		Set: func(o *options, _ string) error { o.hazards = true; return nil }},
	{Option: cli.Option{Names: []string{"--unit-id-base"}, Arg: "FIRST", Help: "First unit id (disjoint ids per rank let trace_reader merge copy the files' blocks; default 1)"},
		Set: func(o *options, v string) error {
			n, err := strconv.ParseUint(v, 0, strconv.IntSize)
			if err != nil {
				return fmt.Errorf("--unit-id-base %q: want a whole number", v)
			}
			o.idBase = uint(n)
			return nil
		}},
	{Option: cli.Option{Names: []string{"-o", "--output"}, Arg: "FILE", Help: "The trace to write (required)", Complete: cli.Complete{Files: "*"}},
		Set: func(o *options, v string) error { o.out = v; return nil }},
	{Option: cli.Option{Names: []string{"-h", "--help"}, Help: "Show this help"},
		Set: func(o *options, _ string) error { o.help = true; return nil }},
	{Option: cli.Option{Names: []string{"--version"}, Help: "Print the version (also: pipesim version)"},
		Set: func(o *options, _ string) error { o.version = true; return nil }},
}

// tool describes pipesim for internal/cli (help, manual page, docs/cli.md).
func tool() *cli.Tool {
	return &cli.Tool{
		Name:     "pipesim",
		Summary:  "run the example pipeline simulator and write its trace",
		Synopsis: "[-n INSTRUCTIONS] [--hazards] [--unit-id-base FIRST] -o FILE",
		Description: "pipesim simulates instructions through fetch, decode, rename, exec and retire\n" +
			"and traces them: spans per stage, one flow per instruction, a ROB occupancy\n" +
			"counter. trace_reader stats reports the stage latencies, trace_reader export\n" +
			"shows the instructions flowing through the pipeline in Perfetto. With\n" +
			"--hazards: fetch labels, stalls, squashes and register dependencies, what the\n" +
			"Kanata export shows in Konata.\n\n" +
			"The options of the first releases, Go flag's single-dash spellings (-hazards,\n" +
			"-unit-id-base), still work, with a note on stderr, until the next release.",
		Options: cli.Options(flags),
		Exit:    "0 ok; 1 the trace could not be written (no file is left); 2 usage.",
	}
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
	o := options{n: 1000, idBase: 1}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "pipesim: %s\n%s\n", fmt.Sprintf(format, args...), cli.Hint(tool(), ""))
		return 2
	}
	operands, err := cli.ParseFlags(&o, args, flags, func(used, instead string) {
		fmt.Fprintln(stderr, cli.Deprecated("pipesim", used, instead))
	})
	if err != nil {
		return usage("%v", err)
	}
	if len(operands) == 1 && (operands[0] == "help" || operands[0] == "version") {
		o.help, o.version, operands = operands[0] == "help", operands[0] == "version", nil
	}
	switch {
	case len(operands) != 0:
		return usage("unexpected argument %q", operands[0])
	case o.help:
		cli.WriteHelp(stdout, tool())
		return 0
	case o.version:
		io.WriteString(stdout, cli.BuildVersion("pipesim"))
		return 0
	case o.out == "":
		return usage("-o FILE is required")
	}
	// Run numbers a unit per stage and the ROB; RunHazards has no ROB unit.
	units := uint(len(pipesim.Stages)) + 1
	if o.hazards {
		units--
	}
	if o.idBase < 1 || o.idBase+units-1 > 65535 {
		// Checked here, not by the tracer on the unit that overflows: that
		// one would fail the run after the file is created.
		return usage("--unit-id-base %d: the %d units are numbered from it, so it must be 1..%d", o.idBase, units, 65536-units)
	}
	if err := write(o.out, o.n, o.hazards, uint16(o.idBase)); err != nil {
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
