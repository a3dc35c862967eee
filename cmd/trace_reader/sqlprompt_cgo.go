//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// interactive reads statements at a prompt (line editing and history from
// x/term) until .quit or end of input. A statement runs when a line ends
// with ';'; dot commands: .tables, .schema T, .help, .quit.
func interactive(db *tracesql.DB, stdout io.Writer) error {
	fd := int(os.Stdin.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return err
	}
	defer term.Restore(fd, old)
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{os.Stdin, stdout}, "sql> ")
	what := fmt.Sprintf("%d trace(s)", len(db.Readers()))
	if len(db.Readers()) == 0 {
		what = "a dataset of Parquet files" // sql DIR
	}
	fmt.Fprintf(t, "%s; .tables lists the tables, .schema T a table's columns, .quit ends.\n", what)
	var pending strings.Builder
	for {
		line, err := t.ReadLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		trimmed := strings.TrimSpace(line)
		if pending.Len() == 0 && strings.HasPrefix(trimmed, ".") {
			quit, err := dotCommand(db, t, trimmed)
			if err != nil {
				fmt.Fprintf(t, "error: %v\n", err)
			}
			if quit {
				return nil
			}
			continue
		}
		pending.WriteString(line)
		pending.WriteString("\n")
		if !strings.HasSuffix(trimmed, ";") {
			t.SetPrompt("...> ")
			continue
		}
		q := pending.String()
		pending.Reset()
		t.SetPrompt("sql> ")
		if err := runQuery(db, q, &resultWriter{w: t}); err != nil {
			fmt.Fprintf(t, "error: %s\n", sqlErrLine(err))
		}
	}
}

// dotCommand runs one dot command; quit means .quit (or .exit).
func dotCommand(db *tracesql.DB, w io.Writer, cmd string) (quit bool, err error) {
	name, arg, _ := strings.Cut(cmd, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ".quit", ".exit", ".q":
		return true, nil
	case ".tables":
		_, err = fmt.Fprintln(w, strings.Join(db.TableNames(), "  ")) // names only: a trace may have 100k formats
	case ".schema":
		found := false
		for _, t := range db.Tables() {
			if arg == "" || t.Name == arg {
				writeTable(w, t)
				found = true
			}
		}
		if !found {
			return false, fmt.Errorf("no table %q (.tables lists them)", arg)
		}
	case ".help":
		_, err = fmt.Fprintln(w, dotHelp)
	default:
		return false, fmt.Errorf("unknown command %s: %s", name, dotHelp)
	}
	return false, err
}

// dotHelp lists the dot commands.
const dotHelp = ".tables  .schema [TABLE]  .help  .quit  (SQL statements end with ';')"
