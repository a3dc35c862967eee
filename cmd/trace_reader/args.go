package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/internal/cli"
	"github.com/chronon-sim/chronon-go/internal/cyclenum"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// config is a parsed command line.
type config struct {
	warn       io.Writer // stderr: warnings of a command that goes on
	command    string
	file       string   // the first file: the only one of single-file commands
	files      []string // every file (operand), in command line order
	hasCycles  bool
	start, end uint64
	units      []string // --unit values, in order (units.go)
	hasUnit    bool
	limit      int
	output     string
	verbose    bool
	help       bool
	given      []*option // the options given, in order

	format       string  // export
	nsPerCycle   float64 // export
	maxFileBytes int64   // export
	json         bool    // info, stats, diff, merge, recover, sql
	noVerify     bool    // merge
	strict       bool    // sql: a dataset's damaged file is an error
	allStrings   bool    // info: every interned string
	memory       int64   // --memory: mmapio's budget for decoded data (0: its default)
	follow       bool    // stats --follow
	context      int     // diff
	label        string  // info of one of several files
	query        string  // sql -c
	hasQuery     bool    // sql: -c given
	csv          bool    // sql
	dataset      string  // export --format parquet --dataset DIR
}

// usageError is a command line the tool cannot run: exit status 2.
type usageError struct {
	command string // for the hint `trace_reader help COMMAND`; "" if unknown
	msg     string
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// option is one row of the option table: its spellings, the value it
// takes ("" for a switch), its help line and what it sets.
type option = cli.Flag[*config]

// opt makes an option row.
func opt(names []string, arg, help string, set func(c *config, v string) error) *option {
	return &option{Option: cli.Option{Names: names, Arg: arg, Help: help}, Set: set}
}

var (
	optCycles = opt([]string{"--cycles"}, "START-END", "Only events with START <= cycle <= END; START- or a bare START means from START on (0x: hex)",
		func(c *config, v string) (err error) {
			c.start, c.end, err = parseCycles(v)
			c.hasCycles = true
			return err
		})
	optUnit = opt([]string{"--unit"}, "NAME", "Units whose name contains NAME; with * ? [ also those it matches whole (path.Match); =NAME: exactly NAME; \\ escapes; repeated: any (none: status 1)",
		addUnit)
	optLimit = opt([]string{"--limit"}, "N", "Stop after N events (0 = no limit)",
		func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return usagef("--limit %q: want a number of events (0 = no limit)", v)
			}
			c.limit = int(min(n, math.MaxInt))
			return nil
		})
	optOutput = withFiles(opt([]string{"-o", "--output"}, "FILE", "Write to FILE instead of standard output (not the input file)",
		func(c *config, v string) error { c.output = v; return nil }))
	optDataset = withFiles(opt([]string{"--dataset"}, "DIR", "With --format parquet, instead of -o: each file's rows as partitions DIR/<table>/trace=<label>/ of one dataset (a label's partitions are replaced)",
		func(c *config, v string) error { c.dataset = v; return nil }))
	optVerbose = opt([]string{"-v", "--verbose"}, "", "More detail",
		func(c *config, _ string) error { c.verbose = true; return nil })
	optHelp = opt([]string{"-h", "--help"}, "", "Show this help",
		func(c *config, _ string) error { c.help = true; return nil })
	optFormat = withWords(opt([]string{"--format"}, "F", "perfetto (default), chrome-json, kanata, or parquet (-o DIR: a directory of Parquet files, the tables of sql)",
		func(c *config, v string) error {
			if !slices.Contains(exportFormats, v) {
				return usagef("--format %q: want %s", v, orList(exportFormats))
			}
			c.format = v
			return nil
		}), exportFormats...)
	optNsPerCycle = opt([]string{"--ns-per-cycle"}, "X", "Nanoseconds per cycle on the timeline (default: the trace's time base, else 1)",
		func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return usagef("--ns-per-cycle %q: want a number of nanoseconds in (0, 1e9]", v)
			}
			c.nsPerCycle = f
			return nil
		})
	optMaxFileSize = opt([]string{"--max-file-size"}, "N", "Split into files of about N bytes, by cycle window (default 536870912; 0 = one file)",
		func(c *config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return usagef("--max-file-size %q: want bytes (0 = never split)", v)
			}
			c.maxFileBytes = n
			return nil
		})
	optFollow = opt([]string{"--follow"}, "", "Follow one file being written: per-unit rates every second; at its close, rates since follow started",
		func(c *config, _ string) error { c.follow = true; return nil })
	optMemory = opt([]string{"--memory"}, "SIZE", "Memory for decoded data beyond the file's mapping (default 256MiB; bytes, or KiB/MiB/GiB: binary, 1MB = 1MiB)",
		func(c *config, v string) error {
			n, err := parseSize(v)
			if err != nil || n < mmapio.MinMemoryBudget || n > mmapio.MaxMemoryBudget {
				return usagef("--memory %q: want a size from 1MiB to 1TiB (bytes, or with KiB, MiB, GiB)", v)
			}
			c.memory = n
			return nil
		})
	optContext = opt([]string{"--context"}, "N", "Events of context around a divergence (default 3)",
		func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 16)
			if err != nil {
				return usagef("--context %q: want a number of events", v)
			}
			c.context = int(n)
			return nil
		})
	optJSON = opt([]string{"--json"}, "", "Print one JSON object instead of text (its fields: docs/cli.md, JSON reports)",
		func(c *config, _ string) error { c.json = true; return nil })
	optNoVerify = opt([]string{"--no-verify"}, "", "Copy blocks without decoding them to check them first (faster; one failing its recorded CRC32C is still refused, a corrupt one of a file without block checksums goes into OUT)",
		func(c *config, _ string) error { c.noVerify = true; return nil })
	optCommand = opt([]string{"-c", "--command"}, "QUERY", "The SQL to run (statements separated by ';'; the last one's result is printed)",
		func(c *config, v string) error { c.query, c.hasQuery = v, true; return nil })
	optCSV = opt([]string{"--csv"}, "", "CSV with a header row instead of an aligned table",
		func(c *config, _ string) error { c.csv = true; return nil })
	optSQLJSON = opt([]string{"--json"}, "", "JSON: an array of objects, one per row",
		func(c *config, _ string) error { c.json = true; return nil })
	optStrings = opt([]string{"--strings"}, "", "List every interned string, by id (-v lists the first 20); with --json, all of them in symbol_list",
		func(c *config, _ string) error { c.allStrings = true; return nil })
	optStrict = opt([]string{"--strict"}, "", "A dataset with a damaged Parquet file: fail (status 1) naming it, instead of reading the others with a warning",
		func(c *config, _ string) error { c.strict = true; return nil })
)

func withFiles(o *option) *option { o.Complete.Files = "*"; return o }

func withWords(o *option, words ...string) *option { o.Complete.Words = words; return o }

// exportFormats are the values of export --format.
var exportFormats = []string{export.FormatPerfetto, export.FormatChromeJSON, export.FormatKanata, formatParquet}

// formatParquet writes a directory of Parquet files (parquet_cgo.go).
const formatParquet = "parquet"

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// parseArgs parses `<command> [options] <file.ctrace>`. As in the original
// tool, options and the file may come in any order after the command
// (`dump FILE --limit 10`); an option takes its value as the next argument
// or after '=' (--limit=10); after "--" every argument is a file name
// (internal/cli, the syntax of every tool of the module). `help [COMMAND]`
// is the same as `[COMMAND] --help`, `--version` as `version`.
func parseArgs(args []string) (*config, error) {
	c := &config{format: export.FormatPerfetto, maxFileBytes: export.DefaultMaxFileBytes, context: 3} // nsPerCycle 0: not given
	if len(args) == 0 {
		return nil, usagef("missing command")
	}
	switch args[0] {
	case "-h", "--help":
		c.help = true
		return c, nil
	case "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	if args[0] == "help" {
		c.help = true
		switch len(args) {
		case 1:
			return c, nil
		case 2:
			if lookupCommand(args[1]) == nil {
				return nil, usagef("help: unknown command %q", args[1])
			}
			c.command = args[1]
			return c, nil
		}
		return nil, &usageError{command: "help", msg: fmt.Sprintf("help takes one command, not %q", args[1:])}
	}
	cmd := lookupCommand(args[0])
	if cmd == nil {
		return nil, usagef("unknown command %q", args[0])
	}
	c.command = cmd.name
	if err := parseOptions(c, cmd, args[1:]); err != nil {
		if u, ok := err.(*usageError); ok {
			u.command = cmd.name
			u.msg = cmd.name + ": " + u.msg
		}
		return nil, err
	}
	return c, nil
}

func parseOptions(c *config, cmd *command, rest []string) error {
	files, err := cli.Parse(rest, cli.Options(cmd.options), func(row int, _, value string) error {
		o := cmd.options[row]
		c.given = append(c.given, o)
		return o.Set(c, value)
	}, nil)
	var ce *cli.UsageError
	if errors.As(err, &ce) {
		if ce.Unknown != "" && findOption(allOptions(), ce.Unknown) != nil {
			return usagef("option %s is not one of %s's", ce.Unknown, cmd.name)
		}
		return usagef("%s", ce.Msg)
	}
	if err != nil {
		return err
	}
	if c.help {
		return nil
	}
	c.files = files
	if len(files) > 0 {
		c.file = files[0]
	}
	switch cmd.arity {
	case noOperand:
		if len(files) > 0 {
			return usagef("takes no operand, not %q", files[0])
		}
		return nil
	case oneWord:
		if len(files) != 1 {
			return usagef("needs one of %s", orList(cmd.operands.Words))
		}
		return nil
	case oneFile:
		if len(files) > 1 {
			return usagef("more than one file: %q and %q", files[0], files[1])
		}
	}
	if c.file == "" {
		return usagef("missing trace file")
	}
	if cmd.arity == twoFiles && len(c.files) != 2 {
		if len(c.files) > 2 { // rank*.ctrace of two runs: diff compares two timelines
			return usagef("needs two files, not %d; to compare runs of several files, merge each run first "+
				"(trace_reader merge -o A.ctrace run1/rank*.ctrace, the same for B), then diff A.ctrace B.ctrace", len(c.files))
		}
		return usagef("needs two files, not %d", len(c.files))
	}
	if c.follow && (c.json || c.output != "") {
		// Checked here, not when following: that may first wait for the file.
		return usagef("--follow prints tables to standard output: not with --json or -o")
	}
	if (cmd.name == "follow" || c.follow) && len(c.files) > 1 {
		// A follower polls one growing file; merging several live ones
		// by cycle would need them all to advance together.
		return usagef("follows one file only, not %d", len(c.files))
	}
	if c.dataset != "" {
		if c.format != formatParquet {
			return usagef("--dataset writes Parquet: give --format parquet")
		}
		if c.output != "" {
			return usagef("--dataset DIR and -o exclude each other (one dataset of many runs, or one directory of tables)")
		}
	}
	if cmd.needsOut && c.output == "" && c.dataset == "" {
		return usagef("needs -o OUT")
	}
	if cmd.name == "sql" || cmd.name == "export" && c.format == formatParquet {
		return checkSQL(c, cmd)
	}
	return nil
}

// checkSQL checks what sql and the Parquet export (tracesql) take: one
// --unit, and of export's options those that apply to a table export.
func checkSQL(c *config, cmd *command) error {
	if len(c.units) > 1 {
		return usagef("--unit %q: %s takes one --unit", c.units[1], cmd.name)
	}
	if cmd.name == "export" {
		for _, o := range c.given {
			if !slices.Contains(parquetOptions, o) {
				return usagef("option %s does not apply to --format parquet", o.Long())
			}
		}
	}
	if c.csv && c.json {
		return usagef("--csv and --json exclude each other")
	}
	return nil
}

// parquetOptions are the export options that apply to --format parquet.
var parquetOptions = []*option{optFormat, optCycles, optUnit, optOutput, optDataset, optVerbose, optMemory, optHelp}

func findOption(opts []*option, name string) *option {
	for _, o := range opts {
		if slices.Contains(o.Names, name) {
			return o
		}
	}
	return nil
}

func allOptions() []*option {
	var all []*option
	for _, c := range commandTable {
		all = append(all, c.options...)
	}
	return all
}

// parseCycles parses START-END (inclusive), START- or START (from there
// on), each number decimal or 0x hex, as CHRONON_TRACE's cycles= reads its
// numbers (internal/cyclenum); unlike cycles=, a bare START is "from START
// on" here, as in the original tool.
func parseCycles(s string) (uint64, uint64, error) {
	start, end, err := cyclenum.Range(s)
	if err != nil {
		return 0, 0, usagef("--cycles %q: %v", s, err)
	}
	return start, end, nil
}

// openEnded shows a recorded selection (chronon.select metadata) as it is
// written: an open cycle window as cycles=A-, not A-18446744073709551615.
func openEnded(sel string) string {
	parts := strings.Split(sel, ";")
	for i, p := range parts {
		if w, ok := strings.CutPrefix(p, "cycles="); ok {
			if lo, ok := strings.CutSuffix(w, "-18446744073709551615"); ok {
				parts[i] = "cycles=" + lo + "-"
			}
		}
	}
	return strings.Join(parts, ";")
}

// parseSize reads a byte count: digits, optionally followed by K, M, G or T
// (binary: KiB, MiB, GiB, TiB; the "iB"/"B" is optional).
func parseSize(v string) (int64, error) {
	num := strings.TrimRight(v, "KMGTiBkmgtb")
	unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(v[len(num):], "B"), "b"))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "I"), "i")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size: %q", v)
	}
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	if !ok || n > math.MaxInt64>>sh {
		return 0, fmt.Errorf("not a size: %q", v)
	}
	return n << sh, nil
}

// openTrace opens the command's trace with the options every reading
// command shares (the memory budget), and extra ones.
func openTrace(c *config, path string, extra ...mmapio.Option) (*mmapio.Reader, error) {
	r, err := mmapio.Open(path, readerOptions(c, extra...)...)
	if err == nil && c.command != "recover" && c.command != "verify" { // they report them their way
		warnDamaged(c, r)
	}
	return r, err
}

// warnDamaged names on stderr the blocks the recovery walk of r left out
// between good ones (a footer-less file with a flipped bit): what the
// command prints lacks their events, which must not go unsaid.
func warnDamaged(c *config, r *mmapio.Reader) {
	if c.warn == nil {
		return
	}
	st := r.Status()
	for _, d := range st.Damaged {
		fmt.Fprintf(c.warn, "trace_reader: warning: %s: %s: its events are left out\n", r.Path(), oneLine(d))
	}
	if tornByDamage(st) {
		fmt.Fprintf(c.warn, "trace_reader: warning: %s: the blocks from byte %d on are left out: %s\n", r.Path(), st.TornOffset, oneLine(st.TornReason))
	}
	if st.CutShort && c.command != "merge" { // merge names each recovered input in its own line
		fmt.Fprintf(c.warn, "trace_reader: warning: %s\n", cutShortLine(r.Path(), st))
	}
}

// cutShortLine says what is read of a closed file that was cut short: the
// blocks before the cut; the rest, and the footer, are lost.
func cutShortLine(path string, st mmapio.Status) string {
	return fmt.Sprintf("%s: the file was cut short at byte %d (its footer lay further): only the %d blocks (%d events) before the cut are read",
		path, st.TornOffset+st.TornBytes, st.Blocks, st.Events)
}

// tornByDamage reports whether the torn tail of a recovered file starts
// with a whole block that does not decode: a cut leaves a block that runs
// past the end of the file, or zeros, not that; a flipped bit does.
func tornByDamage(st mmapio.Status) bool {
	return st.TornBytes > 0 && strings.Contains(st.TornReason, "does not decode")
}

// readerOptions are the reader options of the command line, and extra ones.
func readerOptions(c *config, extra ...mmapio.Option) []mmapio.Option {
	opts := extra
	if c.memory > 0 {
		opts = append(opts, mmapio.WithMemoryBudget(c.memory))
	}
	return opts
}
