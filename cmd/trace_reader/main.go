// Command trace_reader prints and repairs .ctrace files. It is compatible
// with the original C++ trace_reader: same commands, options and output
// (dump prints byte-identical text), plus recovery of files a killed writer
// left without a footer.
//
//	trace_reader <command> [options] <file.ctrace>
//
// Exit status: 0 ok, 1 the file is bad or unreadable (one line on stderr
// says what and where), 2 usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

const usage = `Usage: trace_reader <command> [options] <file.ctrace>

Commands:
  info       Show trace file information (with -v: formats, units, per-unit counts)
  dump       Dump events as text
  filter     Dump events matching --cycles and --unit
  convert    Convert the whole trace to text (--limit is ignored)
  recover    Write a complete file (schema, blocks, footer) from a footer-less
             or torn one: recover FILE -o OUT
  export     Write a file trace viewers open: export --format perfetto FILE -o OUT
             (ui.perfetto.dev, trace_processor) or --format chrome-json
             (chrome://tracing); units become nested tracks, spans slices,
             counters counter tracks, flow ids arrows
  stats      Per unit and format: counts and rates; spans: durations and
             occupancy; flows: cycles from each unit to the next (--json)

Options:
  --cycles START-END  Only events with START <= cycle <= END (START: from there on)
  --unit NAME         Only events of units whose name contains NAME
  --limit N           Stop after N events (0 = no limit)
  -o, --output FILE   Write to FILE instead of standard output
  -v, --verbose       More detail (dump: event count on stderr)
  -h, --help          Show this help

Export options:
  --format F          perfetto (default) or chrome-json
  --ns-per-cycle X    Nanoseconds per cycle on the timeline (default 1)
  --max-file-size N   Split into files of about N bytes, by cycle window
                      (default 536870912; 0 = one file)

Stats options:
  --json              JSON instead of tables
`

func main() {
	// Writes to a closed pipe return EPIPE instead of killing the process,
	// so `trace_reader dump f | head` ends quietly with status 0.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if os.Getenv("GOGC") == "" {
		// After its first blocks a dump allocates almost nothing (buffers
		// are pooled), so the collector's default slack of 100% of the live
		// heap would only be resident memory: 25% keeps the peak close to
		// what is live (on a 2 GB trace, 55 instead of 75 MiB beyond the
		// mapping) at no measurable cost in time.
		debug.SetGCPercent(25)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes a command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: %v\n\n%s", err, usage)
		return 2
	}
	if c.help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	err = execute(c, stdout, stderr)
	switch {
	case err == nil, isBrokenPipe(err):
		return 0
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "trace_reader: %v\n\n%s", err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "trace_reader: %v\n", err)
		return 1
	}
}

func execute(c *config, stdout, stderr io.Writer) error {
	switch c.command {
	case "info":
		return withOutput(c, stdout, func(w io.Writer) error { return info(c, w) })
	case "dump", "filter", "convert":
		return withOutput(c, stdout, func(w io.Writer) error { return dump(c, w, stderr) })
	case "recover":
		return recoverFile(c, stdout)
	case "export":
		return exportTrace(c, stdout, stderr)
	case "stats":
		return withOutput(c, stdout, func(w io.Writer) error { return statsTrace(c, w, stderr) })
	}
	return usagef("unknown command %q", c.command)
}

// withOutput runs f with the -o file, or stdout.
func withOutput(c *config, stdout io.Writer, f func(io.Writer) error) error {
	if c.output == "" {
		return f(stdout)
	}
	out, err := os.Create(c.output)
	if err != nil {
		return err
	}
	if err := f(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
