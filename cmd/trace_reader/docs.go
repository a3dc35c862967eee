package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

// tool describes trace_reader for internal/cli: its help hint, shell
// completion, manual page and Markdown reference are made from the
// command table, each option with the help its command gives it.
func tool() *cli.Tool {
	t := &cli.Tool{
		Name:    "trace_reader",
		Summary: "print, filter, export, compare and repair .ctrace trace files",
		Description: "trace_reader reads the .ctrace files Chronon writes (the Go runtime, the C and C++\n" +
			"library, the original C++ Chronon): it is compatible with the original\n" +
			"trace_reader (same commands and options; dump prints byte-identical text), and\n" +
			"recovers the files a killed writer left without a footer.\n\n" +
			"info, dump, filter, convert, stats and export accept several files: one\n" +
			"timeline, merged by cycle (ties in file order), units named <label>/<unit>\n" +
			"(label: rank<N> from the file's metadata, else its name without .ctrace).\n\n" +
			"Options may come before or after the files; an option's value is the next\n" +
			"argument or follows '=' (--limit=10); after -- every argument is a file. An\n" +
			"output file is written under a temporary name and renamed into place when\n" +
			"complete; it may not be the input file.",
		Options: []*cli.Option{&optHelp.Option, {Names: []string{"--version"}, Help: "Print the version (as the version command)"}},
		Exit: "0 ok; 1 the file is bad or unreadable, an I/O error, no unit matches --unit,\n" +
			"or reading it needs more memory than --memory gives (one line on stderr naming\n" +
			"the file, and the section and the byte offset or the cycle and the budget);\n" +
			"2 usage (one line, then where the help is). diff: 0 equal, 1 different, 2 error\n" +
			"(any of those of status 1).",
	}
	for _, c := range commandTable {
		cc := &cli.Command{Name: c.name, Synopsis: c.synopsis, Summary: c.summary, Operands: c.operands}
		for _, o := range c.options {
			co := o.Option
			co.Help = optionHelp(c, o)
			cc.Options = append(cc.Options, &co)
		}
		if c.more != nil {
			var b bytes.Buffer
			c.more(&b)
			cc.Notes = strings.Trim(b.String(), "\n")
		}
		t.Commands = append(t.Commands, cc)
	}
	return t
}

// generated handles the options that print what the build makes from the
// command table: --help-man (the manual page, make man) and
// --help-markdown (trace_reader's part of docs/cli.md, make docs).
func generated(args []string, stdout io.Writer) bool {
	if len(args) != 1 {
		return false
	}
	switch args[0] {
	case "--help-man":
		cli.WriteMan(stdout, tool(), cli.Source(), cli.Date())
	case "--help-markdown":
		cli.WriteMarkdown(stdout, tool())
		if err := writeJSONReference(stdout); err != nil {
			panic(err) // a report field without a description: a bug the docs test catches
		}
	default:
		return false
	}
	return true
}
