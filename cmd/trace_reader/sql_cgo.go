//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/sqlscript"
	"github.com/chronon-sim/chronon-go/tracesql"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// sqlOptions are the tracesql options of c's selection.
func sqlOptions(c *config) []tracesql.Option {
	var opts []tracesql.Option
	if c.hasCycles {
		opts = append(opts, tracesql.WithCycles(c.start, c.end))
	}
	if c.hasUnit {
		opts = append(opts, tracesql.WithUnit(c.units[0])) // one (checkSQL)
	}
	if c.memory > 0 {
		opts = append(opts, tracesql.WithMemoryBudget(c.memory))
	}
	if !c.strict {
		opts = append(opts, tracesql.WithSkipDamaged())
	}
	return opts
}

// sqlCommand runs `sql FILE... [-c QUERY]`.
func sqlCommand(c *config, stdout io.Writer) error {
	db, err := tracesql.Open(c.files, sqlOptions(c)...)
	if errors.Is(err, tracesql.ErrDamagedFile) {
		return fmt.Errorf("%w: remove it or export its run again; without --strict, sql reads the others", err)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	for _, r := range db.Readers() {
		warnDamaged(c, r)
	}
	// A dataset of many runs stays readable when one file is damaged (a
	// copy cut short): said loudly, one line per file left out.
	for _, s := range db.Skipped() {
		if c.warn != nil {
			fmt.Fprintf(c.warn, "trace_reader: warning: %s: damaged, left out of table %s (%s); the other files are read (--strict: fail instead)\n", s.Path, s.Table, oneLine(s.Reason))
		}
	}
	out := &resultWriter{w: stdout, csv: c.csv, json: c.json}
	switch {
	case c.hasQuery:
		err = runScript(db, c.query, out)
	case isTerminal(os.Stdin) && stdout == os.Stdout && isTerminal(os.Stdout):
		err = interactive(db, stdout)
	default:
		var b []byte
		if b, err = io.ReadAll(os.Stdin); err == nil {
			err = runScript(db, string(b), out)
		}
	}
	warnImpossibleSpans(c, db, c.files)
	if err != nil && !isBrokenPipe(err) {
		return fmt.Errorf("sql: %s", sqlErrLine(err))
	}
	return nil
}

// sqlErrLine keeps DuckDB's error to its first line ("Catalog Error: Table
// with name x does not exist!"), without the query echo and caret after it.
func sqlErrLine(err error) string {
	s := strings.TrimSpace(err.Error())
	if first, _, ok := strings.Cut(s, "\n"); ok {
		s = strings.TrimSpace(first)
	}
	return oneLine(s)
}

// runScript runs a script (split by internal/sqlscript): its SQL, and its dot commands;
// the first error ends it, .quit too.
func runScript(db *tracesql.DB, script string, out *resultWriter) error {
	for _, it := range sqlscript.Split(script) {
		if it.Dot == "" {
			if err := runQuery(db, it.SQL, out); err != nil {
				return err
			}
			continue
		}
		quit, err := dotCommand(db, out.w, it.Dot)
		if err != nil || quit {
			return err
		}
	}
	return nil
}

// runQuery runs the statements and prints the result of the last one that
// returns rows.
func runQuery(db *tracesql.DB, query string, out *resultWriter) error {
	rows, err := db.Query(query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return out.write(rows)
}

// warnImpossibleSpans says when the span tables left out complete spans that
// end before they begin (tracesql.DB.ImpossibleSpans), and names the first.
func warnImpossibleSpans(c *config, db *tracesql.DB, files []string) {
	if n, first := db.ImpossibleSpans(); n > 0 && c.warn != nil {
		fmt.Fprintf(c.warn, "trace_reader: warning: %s: the spans tables left out complete spans that end before they begin (%s), %d time%s; the first: %s\n",
			strings.Join(files, ", "), tracetext.ImpossibleSpanCause, n, plural(int(n)), oneLine(first))
	}
}
