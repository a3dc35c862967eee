package cli

import (
	"fmt"
	"io"
	"strings"
)

// WriteMan writes t's manual page (man(7) macros, section 1): its
// synopsis, description, every command with its options, the exit
// statuses. source names the package and its version (the page's footer),
// date the version's date, or "".
func WriteMan(w io.Writer, t *Tool, source, date string) {
	fmt.Fprintf(w, ".TH %s 1 %s %s \"User Commands\"\n", strings.ToUpper(troff(t.Name)), quoteText(date), quoteText(source))
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", troff(t.Name), troff(t.Summary))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.nf\n")
	if t.Commands == nil {
		fmt.Fprintf(w, "\\fB%s\\fR %s\n", troff(t.Name), troff(t.Synopsis))
	}
	for _, c := range t.Commands {
		fmt.Fprintf(w, "\\fB%s %s\\fR %s\n", troff(t.Name), troff(c.Name), troff(c.Synopsis))
	}
	fmt.Fprintf(w, ".fi\n")
	if t.Description != "" {
		fmt.Fprintf(w, ".SH DESCRIPTION\n")
		paragraphs(w, t.Description, true)
	}
	if len(t.Options) > 0 {
		fmt.Fprintf(w, ".SH OPTIONS\n")
		if t.Commands != nil {
			fmt.Fprintf(w, "Instead of a command:\n")
		}
		manOptions(w, t.Options)
	}
	if t.Commands != nil {
		fmt.Fprintf(w, ".SH COMMANDS\n")
	}
	for _, c := range t.Commands {
		fmt.Fprintf(w, ".SS %s\n", quoteArg(c.Name))
		fmt.Fprintf(w, "\\fB%s %s\\fR %s\n", troff(t.Name), troff(c.Name), troff(c.Synopsis))
		paragraphs(w, c.Summary, false)
		manOptions(w, c.Options)
		if c.Notes != "" {
			fmt.Fprintf(w, ".PP\n.nf\n")
			for _, l := range strings.Split(c.Notes, "\n") {
				fmt.Fprintf(w, "%s\n", troffLine(l))
			}
			fmt.Fprintf(w, ".fi\n")
		}
	}
	if t.Exit != "" {
		fmt.Fprintf(w, ".SH \"EXIT STATUS\"\n")
		paragraphs(w, t.Exit, true)
	}
}

func manOptions(w io.Writer, opts []*Option) {
	for _, o := range opts {
		names := make([]string, len(o.Names))
		for i, n := range o.Names {
			names[i] = "\\fB" + troff(n) + "\\fR"
		}
		fmt.Fprintf(w, ".TP\n%s", strings.Join(names, ", "))
		if o.Arg != "" {
			fmt.Fprintf(w, " \\fI%s\\fR", troff(o.Arg))
		}
		fmt.Fprintf(w, "\n%s\n", troffLine(o.Help))
	}
}

// paragraphs writes text whose paragraphs are separated by blank lines,
// each filled by the formatter (the text's own line breaks are spaces);
// the first starts without .PP right after a heading.
func paragraphs(w io.Writer, text string, afterHeading bool) {
	for i, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 || !afterHeading {
			fmt.Fprintf(w, ".PP\n")
		}
		for _, l := range strings.Split(p, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				fmt.Fprintf(w, "%s\n", troffLine(l))
			}
		}
	}
}

// troff escapes text for the formatter: a backslash prints as itself, a
// hyphen as a minus sign (what is typed in option names and commands).
func troff(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// troffLine is troff of a line of text: one that starts with a period or
// an apostrophe would be read as a request.
func troffLine(s string) string {
	s = troff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// quoteArg quotes a macro argument.
func quoteArg(s string) string { return quoteText(troff(s)) }

// quoteText quotes a macro argument that is text, not typed: a date, a
// version (its hyphens are hyphens).
func quoteText(s string) string {
	return `"` + strings.NewReplacer(`\`, `\e`, `"`, `\(dq`).Replace(s) + `"`
}
