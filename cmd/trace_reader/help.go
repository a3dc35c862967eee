package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

const usage = `Usage: trace_reader <command> [options] <file.ctrace>

Commands:
  info       Show trace file information: blocks, time base, interned strings
             (with -v: formats, units and their clocks, per-unit counts; --json)
  dump       Dump events as text
  filter     Dump events matching --cycles and --unit
  convert    Convert the whole trace to text (--limit is ignored)
  follow     Print the events of one file while its writer appends them, as
             dump prints them, until the writer closes it (or Ctrl-C); waits
             for a file not yet created; a file truncated, rewritten or
             replaced at its path while followed ends it with status 1
  recover    Write a complete file (schema, blocks, footer) from a footer-less
             or torn one: recover FILE -o OUT (--json: the summary as JSON); damaged
             blocks are left out and named on stderr (exit 0)
  verify     Check every checksum, every block and the footer's totals and
             unit sets against the blocks: one line per problem (--json);
             exit 0 ok, 1 a problem
  export     Write a file trace viewers open: export --format F FILE -o OUT;
             F: perfetto (default; ui.perfetto.dev, trace_processor),
             chrome-json (chrome://tracing): units become nested tracks, spans
             slices, counters counter tracks, flow ids arrows; kanata (Konata's
             pipeline log, one row per flow); parquet: -o DIR, the tables of
             sql as Parquet files
  stats      Per unit and format: counts and rates; spans: durations and
             occupancy; flows: cycles from each unit to the next (--json);
             stats --follow FILE: per-unit rates while the file is written
  merge      Write one trace holding every event of several: merge -o OUT FILE...
             (--json: the summary as JSON)
  diff       Compare two runs event by event per unit: diff A B (exit 0 equal,
             1 different, 2 error; --json); runs of several files: merge each
             first
  sql        SQL (DuckDB) on one or more traces, no import step:
             sql FILE... -c QUERY (or --command QUERY; --csv, --json; a prompt
             without -c); export --format parquet -o DIR FILE... writes Parquet
  completion Print a shell completion script: completion bash|zsh|fish
  version    Print the version and the commit built from (also --version)
  help CMD   Show the options of one command

info, dump, filter, convert, stats and export accept several files: one
timeline, merged by cycle (ties in file order), units named <label>/<unit>
(label: rank<N> from the file's metadata, else its name without .ctrace).

Options (info, dump, filter, convert; most of them also the other commands,
help CMD says which):
  --cycles START-END  Only events with START <= cycle <= END; START- or a bare
                      START means from START on (decimal or 0x hex)
  --unit NAME         Only events of units whose name contains NAME; with * ? [
                      also those it matches as a pattern on the whole name
                      (path.Match, as CHRONON_TRACE's units=); =NAME: exactly
                      NAME; \ escapes the next character; repeated: units any
                      of them selects
  --limit N           Stop after N events (0 = no limit)
  --memory SIZE       Memory for decoded data beyond the file's mapping
                      (default 256MiB; bytes, or KiB/MiB/GiB: binary, 1MB =
                      1MiB)
  -o, --output FILE   Write to FILE instead of standard output
  -v, --verbose       More detail (dump: event count on stderr)
  -h, --help          Show this help

Options may come before or after the file; a value follows the option or
'=' (--limit=10); after -- every argument is a file. An output file is
written under a temporary name and renamed into place when complete; it may
not be the input file.

Info options (and those above, --json):
  --strings           Every interned string, by id (-v lists the first 20)

Export options (and --cycles, --unit, -o, -v, --memory):
  --format F          perfetto (default), chrome-json, kanata or parquet
  --ns-per-cycle X    Nanoseconds per cycle on the timeline (default 1)
  --max-file-size N   Split into files of about N bytes, by cycle window
                      (default 536870912; 0 = one file)
  --dataset DIR       With parquet, instead of -o: each file's rows as the
                      partitions DIR/<table>/trace=<label>/ of one dataset of
                      many runs (a label's are replaced); sql DIR reads it.
                      A named span's table there is NAME_spans, so a name
                      means the same table in every run of one simulator

Stats options (and --cycles, --unit, -o, --memory):
  --json              JSON instead of tables (also info, diff, merge, recover,
                      verify)
  --follow            Follow one file being written: per-unit rates every
                      second; when it is closed, a last table whose rates are
                      the whole run's (events read since follow started / wall
                      time since then; '-' if it was complete at the start)
                      (not with --json or -o)

Merge options (and -o, -v, --json):
  --no-verify         Copy the blocks that keep their ids without decoding them
                      to check them first: about the time of a copy; a block
                      whose bytes fail the CRC32C its file records is still
                      refused, but a corrupt block of a file without block
                      checksums goes into OUT as it is

Diff options (and --cycles, --unit, -o, --memory, --json):
  --context N         Events of context around a divergence (default 3)

SQL options (and -c, --csv, --json, --cycles, --unit, --memory):
  --strict            A dataset (a directory) with a damaged Parquet file:
                      fail, naming it; by default it is left out, named in a
                      warning, and the other files are read

Exit status: 0 ok; 1 the file is bad or unreadable, an I/O error, no unit
matches --unit, or reading it needs more memory than --memory gives (one line
on stderr); 2 usage. diff: 0 equal, 1 different, 2 error (any of those of
status 1).
`

// writeHelp prints the whole usage, or one command's.
func writeHelp(w io.Writer, name string) {
	cmd := lookupCommand(name)
	if cmd == nil {
		fmt.Fprint(w, usage)
		return
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", strings.TrimSpace("trace_reader "+cmd.name+" "+cmd.synopsis), cmd.summary)
	if len(cmd.options) > 0 {
		fmt.Fprintf(w, "\nOptions:\n")
		cli.WriteOptions(w, cli.Options(cmd.options), func(o *cli.Option) string { return optionHelp(cmd, findOption(cmd.options, o.Names[0])) })
	}
	if cmd.more != nil {
		cmd.more(w)
	}
	if len(cmd.options) > 1 && cmd.arity != noOperand && cmd.arity != oneWord {
		fmt.Fprintf(w, "\nOptions may come before or after the file.\n")
	}
}

// usageHint is the line after a usage error: where the full story is.
func usageHint(command string) string { return cli.Hint(tool(), command) }

// optionHelp is o's help line as cmd uses it: the original tool's commands
// all accept its options, and some of them ignore a few; commands that
// write files need -o.
func optionHelp(cmd *command, o *option) string {
	switch {
	case o == optOutput && cmd.needsOut:
		return "Write to FILE (required; not the input file)"
	case cmd.name == "info" && (o == optCycles || o == optUnit || o == optLimit):
		return "Accepted for the original tool's scripts, and ignored"
	case cmd.name == "diff" && o == optUnit:
		// diff's status 1 means "different": its errors are 2.
		return strings.Replace(o.Help, "(none: status 1)", "(none: status 2, an error; 1 means different)", 1)
	case cmd.name == "sql" && o == optUnit:
		return "Every table keeps the events of the units NAME selects, as filter --unit (one --unit)"
	case cmd.name == "sql" && o == optCycles:
		return "Every table keeps the events with START <= cycle <= END (START- or START: from START on)"
	case cmd.name == "export" && o == optVerbose:
		return "A summary on stderr: events, instants, spans, counters, flows; unmatched ends and spans closed at the end; parent links drawn and missing; spans begun before the window and those left out as ending before they begin (what stats notes)"
	case cmd.name == "convert" && o == optLimit:
		return "Accepted for the original tool's scripts, and ignored (convert writes every event)"
	}
	return o.Help
}
