package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/internal/cyclenum"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// config is a parsed command line.
type config struct {
	command    string
	file       string   // the first file: the only one of single-file commands
	files      []string // every file, in command line order
	hasCycles  bool
	start, end uint64
	units      []string // --unit values, in order (units.go)
	hasUnit    bool
	limit      int
	output     string
	verbose    bool
	help       bool

	format       string  // export
	nsPerCycle   float64 // export
	maxFileBytes int64   // export
	json         bool    // stats
	noVerify     bool    // merge
	memory       int64   // --memory: mmapio's budget for decoded data (0: its default)
	follow       bool    // stats --follow
	context      int     // diff
	label        string  // info of one of several files
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
type option struct {
	names []string
	arg   string
	help  string
	set   func(c *config, v string) error
}

var (
	optCycles = &option{[]string{"--cycles"}, "START-END", "Only events with START <= cycle <= END; START- or a bare START means from START on (0x: hex)",
		func(c *config, v string) (err error) {
			c.start, c.end, err = parseCycles(v)
			c.hasCycles = true
			return err
		}}
	optUnit = &option{[]string{"--unit"}, "NAME", "Units whose name contains NAME; with * ? [ also those it matches whole (path.Match); =NAME: exactly NAME; \\ escapes; repeated: any (none: status 1)",
		addUnit}
	optLimit = &option{[]string{"--limit"}, "N", "Stop after N events (0 = no limit)",
		func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return usagef("--limit %q: want a number of events (0 = no limit)", v)
			}
			c.limit = int(min(n, math.MaxInt))
			return nil
		}}
	optOutput = &option{[]string{"-o", "--output"}, "FILE", "Write to FILE instead of standard output (not the input file)",
		func(c *config, v string) error { c.output = v; return nil }}
	optVerbose = &option{[]string{"-v", "--verbose"}, "", "More detail",
		func(c *config, _ string) error { c.verbose = true; return nil }}
	optHelp = &option{[]string{"-h", "--help"}, "", "Show this help",
		func(c *config, _ string) error { c.help = true; return nil }}
	optFormat = &option{[]string{"--format"}, "F", "perfetto (default), chrome-json or kanata; parquet: -o DIR, FILE... (help sql)",
		func(c *config, v string) error {
			if !slices.Contains(exportFormats, v) {
				return usagef("--format %q: want perfetto, chrome-json or kanata", v)
			}
			c.format = v
			return nil
		}}
	optNsPerCycle = &option{[]string{"--ns-per-cycle"}, "X", "Nanoseconds per cycle on the timeline (default 1)",
		func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return usagef("--ns-per-cycle %q: want a number of nanoseconds in (0, 1e9]", v)
			}
			c.nsPerCycle = f
			return nil
		}}
	optMaxFileSize = &option{[]string{"--max-file-size"}, "N", "Split into files of about N bytes, by cycle window (default 536870912; 0 = one file)",
		func(c *config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return usagef("--max-file-size %q: want bytes (0 = never split)", v)
			}
			c.maxFileBytes = n
			return nil
		}}
	optFollow = &option{[]string{"--follow"}, "", "Follow one file being written: per-unit rates every second; at its close, rates since follow started",
		func(c *config, _ string) error { c.follow = true; return nil }}
	optMemory = &option{[]string{"--memory"}, "SIZE", "Memory for decoded data beyond the file's mapping (default 256MiB; bytes, or KiB/MiB/GiB)",
		func(c *config, v string) error {
			n, err := parseSize(v)
			if err != nil || n < mmapio.MinMemoryBudget || n > mmapio.MaxMemoryBudget {
				return usagef("--memory %q: want a size from 1MiB to 1TiB (bytes, or with KiB, MiB, GiB)", v)
			}
			c.memory = n
			return nil
		}}
	optContext = &option{[]string{"--context"}, "N", "Events of context around a divergence (default 3)",
		func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 16)
			if err != nil {
				return usagef("--context %q: want a number of events", v)
			}
			c.context = int(n)
			return nil
		}}
	optJSON = &option{[]string{"--json"}, "", "JSON instead of tables",
		func(c *config, _ string) error { c.json = true; return nil }}
	optNoVerify = &option{[]string{"--no-verify"}, "", "Copy blocks without decoding them to check them first (faster; a corrupt input block goes into OUT)",
		func(c *config, _ string) error { c.noVerify = true; return nil }}
)

// exportFormats are the values of export --format this parser accepts
// (parquet, which writes a directory, is sql.go's).
var exportFormats = []string{export.FormatPerfetto, export.FormatChromeJSON, export.FormatKanata}

// originalOptions are the options of the original tool, which accepted
// every one of them with each of its commands (info ignores the filters):
// its commands keep doing so, for scripts written against it.
var originalOptions = []*option{optCycles, optUnit, optLimit, optOutput, optVerbose, optMemory, optHelp}

// command is one row of the command table.
type command struct {
	name     string
	synopsis string // after `trace_reader NAME`
	summary  string // what it does, for `trace_reader help NAME`
	options  []*option
	needsOut bool // -o is required
}

var commandTable = []*command{
	{"info", "[options] <file.ctrace>...", "Show trace file information (with -v: formats, units, per-unit counts).", originalOptions, false},
	{"dump", "[options] <file.ctrace>...", "Dump events as text, in cycle order (with -v: the event count on stderr).", originalOptions, false},
	{"filter", "[options] <file.ctrace>...", "Dump the events matching --cycles and --unit.", originalOptions, false},
	{"convert", "[options] <file.ctrace>...", "Convert the whole trace to text (--limit is ignored).", originalOptions, false},
	{"recover", "<file.ctrace> -o OUT", "Write a complete file (schema, blocks, footer) from a footer-less or torn one.",
		[]*option{optOutput, optMemory, optHelp}, true},
	{"export", "[options] <file.ctrace>... -o OUT", "Write a file trace viewers open: perfetto (ui.perfetto.dev, trace_processor)\n" +
		"or chrome-json (chrome://tracing). Units become nested tracks, spans slices,\n" +
		"counters counter tracks, flow ids arrows. A split output is OUT, then\n" +
		"OUT's name with .part2, .part3 ... before its extension. kanata: Konata's\n" +
		"pipeline log, one row per flow (instruction), its spans the stages.",
		[]*option{optFormat, optCycles, optUnit, optNsPerCycle, optMaxFileSize, optOutput, optVerbose, optMemory, optHelp}, true},
	{"merge", "-o OUT <file.ctrace>...", "Write one trace holding every event of the files, units named <label>/<unit>\n" +
		"(label: rank<N> from the metadata, else the file's base name), formats\n" +
		"deduplicated, each file's metadata kept under its label. Blocks whose ids\n" +
		"need no renumbering are copied without recompression, after a check that\n" +
		"decodes them (--no-verify skips it: about the time of a copy when every\n" +
		"file's unit ids are its own, see chronon.WithUnitIDBase). An input recovered\n" +
		"from a cut-off file is merged as far as it was recovered; merge says so on\n" +
		"stderr and notes it as <label>/recovered in the output's metadata.",
		[]*option{optOutput, optNoVerify, optVerbose, optHelp}, true},
	{"diff", "[options] <a.ctrace> <b.ctrace>", "Compare two runs event by event per unit (not byte by byte): for each unit\n" +
		"that differs, its first divergence (events numbered from 1 within the unit)\n" +
		"with context and its counts per format;\n" +
		"units present in one run only. Exit 0 equal, 1 different, 2 error.\n" +
		"Runs of several files (one per rank): merge each run first\n" +
		"(trace_reader merge -o A.ctrace run1/rank*.ctrace), then diff the merged files.",
		[]*option{optCycles, optUnit, optContext, optOutput, optMemory, optHelp}, false},
	{"stats", "[options] <file.ctrace>...", "Per unit and format: counts and rates; spans: durations and occupancy;\n" +
		"flows: cycles from each unit to the next.",
		[]*option{optCycles, optUnit, optJSON, optFollow, optOutput, optMemory, optHelp}, false},
	{"follow", "[options] <file.ctrace>", "Print the events of a file while its writer appends them, as dump prints them\n" +
		"(cycle order per unit), until the writer closes the file (or Ctrl-C). A file\n" +
		"not yet created is waited for (its directory must exist).",
		[]*option{optCycles, optUnit, optHelp}, false},
}

// fileArity is how many files a command reads: 1 exactly one, 2 exactly
// two, 0 one or more (the reading commands merge several into one timeline).
func fileArity(name string) int {
	switch name {
	case "recover":
		return 1
	case "diff":
		return 2
	}
	return 0
}

func lookupCommand(name string) *command {
	for _, c := range commandTable {
		if c.name == name {
			return c
		}
	}
	return nil
}

// parseArgs parses `<command> [options] <file.ctrace>`. As in the original
// tool, options and the file may come in any order after the command
// (`dump FILE --limit 10`); an option takes its value as the next argument
// or after '=' (--limit=10); after "--" every argument is a file name.
// `help [COMMAND]` is the same as `[COMMAND] --help`.
func parseArgs(args []string) (*config, error) {
	c := &config{format: export.FormatPerfetto, nsPerCycle: 1, maxFileBytes: export.DefaultMaxFileBytes, context: 3}
	if len(args) == 0 {
		return nil, usagef("missing command")
	}
	if args[0] == "-h" || args[0] == "--help" {
		c.help = true
		return c, nil
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
		return nil, usagef("help takes one command, not %q", args[1:])
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
	files := false // after "--"
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !files && a == "--" {
			files = true
			continue
		}
		if files || !strings.HasPrefix(a, "-") || a == "-" {
			if c.file != "" && fileArity(cmd.name) == 1 {
				return usagef("more than one file: %q and %q", c.file, a)
			}
			if c.file == "" {
				c.file = a
			}
			c.files = append(c.files, a)
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			name, value, hasValue = strings.Cut(a, "=")
		}
		o := findOption(cmd.options, name)
		if o == nil {
			if findOption(allOptions(), name) != nil {
				return usagef("option %s is not one of %s's", name, cmd.name)
			}
			return usagef("unknown option %q", a)
		}
		switch {
		case o.arg == "" && hasValue:
			return usagef("option %s takes no value", name)
		case o.arg != "" && !hasValue:
			if i+1 >= len(rest) {
				return usagef("option %s needs a value (%s)", name, o.arg)
			}
			i++
			value = rest[i]
		}
		if err := o.set(c, value); err != nil {
			return err
		}
	}
	if c.help {
		return nil
	}
	if c.file == "" {
		return usagef("missing trace file")
	}
	if fileArity(cmd.name) == 2 && len(c.files) != 2 {
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
	if cmd.needsOut && c.output == "" {
		return usagef("needs -o OUT")
	}
	return nil
}

func findOption(opts []*option, name string) *option {
	for _, o := range opts {
		for _, n := range o.names {
			if n == name {
				return o
			}
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
	return mmapio.Open(path, readerOptions(c, extra...)...)
}

// readerOptions are the reader options of the command line, and extra ones.
func readerOptions(c *config, extra ...mmapio.Option) []mmapio.Option {
	opts := extra
	if c.memory > 0 {
		opts = append(opts, mmapio.WithMemoryBudget(c.memory))
	}
	return opts
}
