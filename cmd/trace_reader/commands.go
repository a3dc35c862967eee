package main

import (
	"io"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

// command is one row of the command table: help, the manual page, the
// shell completion and docs/cli.md are made from it (docs.go).
type command struct {
	name     string
	synopsis string // after `trace_reader NAME`
	summary  string // what it does, for `trace_reader help NAME`
	options  []*option
	arity    arity        // its operands
	operands cli.Complete // what they complete to
	needsOut bool         // -o is required
	more     func(io.Writer)
}

// arity is what operands a command takes.
type arity int

const (
	someFiles arity = iota // one or more (read as one timeline)
	oneFile
	twoFiles
	noOperand
	oneWord // one of operands.Words
)

// originalOptions are the options of the original tool, which accepted
// every one of them with each of its commands (info ignores the filters):
// its commands keep doing so, for scripts written against it.
var originalOptions = []*option{optCycles, optUnit, optLimit, optOutput, optVerbose, optMemory, optHelp}

var traces = cli.Complete{Files: "*.ctrace"}

var commandTable []*command

func init() {
	// Set here, not in the declaration: help's operands are the table's
	// own names.
	commandTable = []*command{
		{name: "info", synopsis: "[options] <file.ctrace>...", summary: "Show trace file information: blocks, time base, interned strings (with -v: formats, units and their clocks, the first 20 interned strings, per-unit counts; --strings: every interned string).",
			options: append(originalOptions[:len(originalOptions):len(originalOptions)], optJSON, optStrings), operands: traces},
		{name: "dump", synopsis: "[options] <file.ctrace>...", summary: "Dump events as text, in cycle order (with -v: the event count on stderr).",
			options: originalOptions, operands: traces},
		{name: "filter", synopsis: "[options] <file.ctrace>...", summary: "Dump the events matching --cycles and --unit.",
			options: originalOptions, operands: traces},
		{name: "convert", synopsis: "[options] <file.ctrace>...", summary: "Convert the whole trace to text (--limit is ignored).",
			options: originalOptions, operands: traces},
		{name: "recover", synopsis: "<file.ctrace> -o OUT", summary: "Write a complete file (schema, blocks, footer) from a footer-less or torn one.\n" +
			"A damaged block (it does not decode or fails its checksum) is left out and\n" +
			"named on stderr (block index, offset, why); the exit status is still 0.",
			options: []*option{optOutput, optJSON, optMemory, optHelp}, arity: oneFile, operands: traces, needsOut: true},
		{name: "verify", synopsis: "<file.ctrace>...", summary: "Check every byte that can be checked: the header, schema and footer (their\n" +
			"CRC32C and structure), every block (decoded: its CRC32C, its zstd frames'\n" +
			"content checksums, its events), the footer's totals, unit sets and unit_stats\n" +
			"(each unit once) against the blocks, and that every event's format and unit\n" +
			"are registered. One line per problem (file, section, byte offset, what); per\n" +
			"file, a line for each thing it could not check (a file of the original writer\n" +
			"has no CRC32C; a header that flags none over a footer that carries them is\n" +
			"a problem) and 'ok' when it found nothing. A file without a footer (its\n" +
			"writer did not close it) is a problem, its blocks checked all the same:\n" +
			"recover writes a closed copy. Exit 0 when every file is ok, 1 otherwise.",
			options: []*option{optJSON, optMemory, optHelp}, operands: traces},
		{name: "export", synopsis: "[options] <file.ctrace>... -o OUT", summary: "Write a file trace viewers open: perfetto (ui.perfetto.dev, trace_processor)\n" +
			"or chrome-json (chrome://tracing). Units become nested tracks, spans slices,\n" +
			"counters counter tracks, flow ids arrows. A split output is OUT, then\n" +
			"OUT's name with .part2, .part3 ... before its extension. kanata: Konata's\n" +
			"pipeline log, one row per flow (instruction), its spans the stages.\n" +
			"parquet: the tables of sql as Parquet files, OUT/<table>/part-*.parquet\n" +
			"(events without message, every per-format table, spans, counters, flows,\n" +
			"units, formats, categories, metadata, blocks;\n" +
			"zstd, rows in unit, cycle order) for Spark, Trino, DuckDB, pandas, polars;\n" +
			"several files: a trace column; one --unit; --ns-per-cycle and\n" +
			"--max-file-size do not apply. --dataset DIR instead of -o: each file's rows\n" +
			"into DIR's Hive partitions DIR/<table>/trace=<label>/, replacing that\n" +
			"label's; many runs, exported anywhere at once, make one dataset that\n" +
			"sql DIR reads; a named span's table there is NAME_spans, the same in\n" +
			"every run of one simulator. Prints the files written (parquet: OUT, or DIR).",
			options:  []*option{optFormat, optCycles, optUnit, optNsPerCycle, optMaxFileSize, optOutput, optDataset, optVerbose, optMemory, optHelp},
			operands: traces, needsOut: true},
		{name: "merge", synopsis: "-o OUT <file.ctrace>...", summary: "Write one trace holding every event of the files, units named <label>/<unit>\n" +
			"(label: rank<N> from the metadata, else the file's base name), formats\n" +
			"deduplicated, categories and interned strings merged by name, each file's\n" +
			"metadata kept under its label. Blocks whose ids\n" +
			"need no renumbering are copied without recompression, after a check that\n" +
			"decodes them (--no-verify skips it: about the time of a copy when every\n" +
			"file's unit ids are its own, see chronon.WithUnitIDBase). An input recovered\n" +
			"from a cut-off file is merged as far as it was recovered; merge says so on\n" +
			"stderr and notes it as <label>/recovered in the output's metadata.",
			options: []*option{optOutput, optNoVerify, optJSON, optVerbose, optHelp}, operands: traces, needsOut: true},
		{name: "diff", synopsis: "[options] <a.ctrace> <b.ctrace>", summary: "Compare two runs event by event per unit (not byte by byte): for each unit\n" +
			"that differs, its first divergence (events numbered from 1 within the unit)\n" +
			"with context and its counts per format;\n" +
			"units present in one run only. Exit 0 equal, 1 different, 2 error.\n" +
			"Runs of several files (one per rank): merge each run first\n" +
			"(trace_reader merge -o A.ctrace run1/rank*.ctrace), then diff the merged files.",
			options: []*option{optCycles, optUnit, optContext, optJSON, optOutput, optMemory, optHelp}, arity: twoFiles, operands: traces},
		{name: "stats", synopsis: "[options] <file.ctrace>...", summary: "Per unit and format: counts and rates; spans: durations and occupancy;\n" +
			"flows: cycles from each unit to the next.",
			options: []*option{optCycles, optUnit, optJSON, optFollow, optOutput, optMemory, optHelp}, operands: traces},
		{name: "follow", synopsis: "[options] <file.ctrace>", summary: "Print the events of a file while its writer appends them, as dump prints them\n" +
			"(cycle order per unit), until the writer closes the file (or Ctrl-C). A file\n" +
			"not yet created is waited for (its directory must exist).",
			options: []*option{optCycles, optUnit, optHelp}, operands: traces},
		{name: "sql", synopsis: "[--csv|--json] [--cycles A-B] [--unit NAME] [--memory SIZE] [--strict] <file.ctrace>... [-c QUERY]", summary: sqlSummary,
			options: []*option{optCommand, optCSV, optSQLJSON, optCycles, optUnit, optMemory, optStrict, optHelp}, operands: traces, more: writeSQLTables},
		{name: "completion", synopsis: "bash|zsh|fish", summary: "Print a script that makes the shell complete trace_reader's commands, options\n" +
			"and files: source <(trace_reader completion bash) in ~/.bashrc, the same\n" +
			"with zsh (after compinit) in ~/.zshrc; trace_reader completion fish | source\n" +
			"in ~/.config/fish/config.fish.",
			options: []*option{optHelp}, arity: oneWord, operands: cli.Complete{Words: cli.Shells}},
		{name: "version", synopsis: "", summary: "Print the version: the module's, the commit it was built from (and whether\n" +
			"the tree had uncommitted changes), the Go version. Also trace_reader --version.",
			options: []*option{optHelp}, arity: noOperand},
		{name: "help", synopsis: "[COMMAND]", summary: "Show the commands, or one command's options (as COMMAND --help).",
			arity: noOperand},
	}
	var names []string
	for _, c := range commandTable {
		names = append(names, c.name)
	}
	lookupCommand("help").operands = cli.Complete{Words: names}
}

func lookupCommand(name string) *command {
	for _, c := range commandTable {
		if c.name == name {
			return c
		}
	}
	return nil
}
