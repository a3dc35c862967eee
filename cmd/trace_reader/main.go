// Command trace_reader prints and repairs .ctrace files. It is compatible
// with the original C++ trace_reader: same commands, options and output
// (dump prints byte-identical text), plus recovery of files a killed writer
// left without a footer.
//
//	trace_reader <command> [options] <file.ctrace>
//
// Exit status: 0 ok, 1 the file is bad or unreadable or needs more memory
// than --memory gives (one line on stderr says what and where), 2 usage;
// diff: 0 equal, 1 different, 2 error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

func main() {
	// Writes to a closed pipe return EPIPE instead of killing the process,
	// so `trace_reader dump f | head` ends quietly with status 0.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// An interrupted command removes its temporary output (the final name
	// never held a partial file), then dies of the signal as before.
	// A process started with SIGINT ignored (a background job of a
	// non-interactive shell, nohup) keeps it ignored, as shells expect:
	// Notify would turn it back on, and the signal could not be re-raised.
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, syscall.SIGTERM)
	if !signal.Ignored(os.Interrupt) {
		signal.Notify(interrupted, os.Interrupt)
	}
	go func() {
		sig := <-interrupted
		dying.Store(true)
		removeTemps()
		// Die of the signal, so that a shell sees what happened (bash
		// stops a script whose child died of SIGINT); the signal arrives
		// asynchronously, hence the wait. Where a process cannot signal
		// itself, the shells' convention: 128 + the signal's number.
		signal.Reset(sig)
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
			time.Sleep(time.Second)
		}
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
	if os.Getenv("GOGC") == "" {
		// After its first blocks a dump allocates almost nothing (buffers
		// are pooled), so the collector's default slack of 100% of the live
		// heap would only be resident memory: 25% keeps the peak close to
		// what is live (on a 2 GB trace, 55 instead of 75 MiB beyond the
		// mapping) at no measurable cost in time.
		debug.SetGCPercent(25)
	}
	setMemoryLimit(os.Args[1:])
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if dying.Load() {
		// The command failed or ended because its temporaries were
		// removed under it: the signal handler decides how the process
		// ends (by the signal), not this exit status.
		select {}
	}
	os.Exit(code)
}

// dying is set once an interrupt is being handled.
var dying atomic.Bool

// run executes a command line and returns the exit status: 0 ok, 1 a bad
// or unreadable file, an I/O error or the memory budget passed (one line
// on stderr naming the file), 2 usage (one line, then where to find help).
func run(args []string, stdout, stderr io.Writer) int {
	if generated(args, stdout) { // --help-man, --help-markdown (docs.go)
		return 0
	}
	c, err := parseArgs(args)
	if err != nil {
		return usageFailure(stderr, err.(*usageError))
	}
	if c.help {
		writeHelp(stdout, c.command)
		return 0
	}
	c.warn = stderr
	err = execute(c, stdout, stderr)
	var u *usageError
	var ex *exitError
	switch {
	case err == nil, isBrokenPipe(err):
		return 0
	case errors.As(err, &ex): // diff: 1 means different, so its errors are 2
		if ex.msg != "" {
			fmt.Fprintf(stderr, "trace_reader: %s\n", oneLine(ex.msg))
		}
		return ex.code
	case errors.As(err, &u):
		if u.command == "" {
			u.command, u.msg = c.command, c.command+": "+u.msg
		}
		return usageFailure(stderr, u)
	default:
		fmt.Fprintf(stderr, "trace_reader: %v\n", oneLine(err.Error()))
		return 1
	}
}

func usageFailure(stderr io.Writer, u *usageError) int {
	fmt.Fprintf(stderr, "trace_reader: %s\n%s\n", oneLine(u.msg), usageHint(u.command))
	return 2
}

// oneLine keeps an error on one line whatever it quotes.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

func execute(c *config, stdout, stderr io.Writer) error {
	switch c.command {
	case "info":
		return withOutput(c, stdout, func(w io.Writer) error { return infoFiles(c, w) })
	case "dump", "filter", "convert":
		if len(c.files) > 1 {
			return withOutput(c, stdout, func(w io.Writer) error { return dumpMulti(c, w, stderr) })
		}
		return withOutput(c, stdout, func(w io.Writer) error { return dump(c, w, stderr) })
	case "merge":
		return mergeFiles(c, stdout, stderr)
	case "diff":
		return diffCommand(c, stdout)
	case "verify":
		return verifyFiles(c, stdout)
	case "recover":
		return recoverFile(c, stdout, stderr)
	case "export":
		if c.format == formatParquet {
			return exportParquet(c, stdout, stderr)
		}
		return exportTrace(c, stdout, stderr)
	case "sql":
		return sqlCommand(c, stdout)
	case "version":
		_, err := io.WriteString(stdout, cli.BuildVersion("trace_reader"))
		return err
	case "completion":
		err := cli.WriteCompletion(stdout, tool(), c.file)
		var u *cli.UsageError
		if errors.As(err, &u) {
			return usagef("%s", u.Msg)
		}
		return err
	case "follow":
		if err := waitForFile(context.Background(), c.file, stderr, followPoll); err != nil {
			return err
		}
		return followTrace(context.Background(), c, stdout, followPoll)
	case "stats":
		if c.follow {
			if err := waitForFile(context.Background(), c.file, stderr, followPoll); err != nil {
				return err
			}
			return followStats(context.Background(), c, stdout, time.Second)
		}
		return withOutput(c, stdout, func(w io.Writer) error { return statsTrace(c, w, stderr) })
	}
	return usagef("unknown command %q", c.command)
}

// withOutput runs f with the -o file, or stdout. The file gets its final
// name only when f succeeds.
func withOutput(c *config, stdout io.Writer, f func(io.Writer) error) error {
	if c.output == "" {
		return f(stdout)
	}
	for _, in := range c.files[min(1, len(c.files)):] { // createOutput checks the first
		if err := notInput(in, c.output); err != nil {
			return err
		}
	}
	out, err := createOutput(c.file, c.output)
	if err != nil {
		return err
	}
	if err := f(out); err != nil {
		out.abort()
		return err
	}
	return out.commit(false)
}

func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
