package cli

import (
	"fmt"
	"io"
	"strings"
)

// OptionLeft is an option's spellings and value as help shows them:
// "-o, --output FILE".
func OptionLeft(o *Option) string {
	s := strings.Join(o.Names, ", ")
	if o.Arg != "" {
		s += " " + o.Arg
	}
	return s
}

// WriteOptions writes opts one per line, their help aligned; help, when
// non-nil, gives an option's help line in place of its own.
func WriteOptions(w io.Writer, opts []*Option, help func(*Option) string) {
	width := 22
	for _, o := range opts {
		width = max(width, len(OptionLeft(o)))
	}
	for _, o := range opts {
		h := o.Help
		if help != nil {
			h = help(o)
		}
		fmt.Fprintf(w, "  %-*s %s\n", width, OptionLeft(o), h)
	}
}

// WriteHelp writes the help of a tool without commands: its synopsis,
// description, options and exit statuses.
func WriteHelp(w io.Writer, t *Tool) {
	fmt.Fprintf(w, "Usage: %s %s\n\n", t.Name, t.Synopsis)
	if t.Description != "" {
		fmt.Fprintf(w, "%s\n\n", t.Description)
	}
	fmt.Fprintf(w, "Options:\n")
	WriteOptions(w, t.Options, nil)
	if t.Exit != "" {
		fmt.Fprintf(w, "\nExit status: %s\n", t.Exit)
	}
}

// Hint is the line after a usage error: where the help is.
func Hint(t *Tool, command string) string {
	switch {
	case t.Commands == nil:
		return "Run '" + t.Name + " --help' for usage."
	case command == "":
		return "Run '" + t.Name + " help' for usage."
	}
	return "Run '" + t.Name + " help " + command + "' for usage."
}
