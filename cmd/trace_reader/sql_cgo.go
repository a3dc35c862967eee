//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// sqlConfig is a parsed sql (or export --format parquet) command line.
type sqlConfig struct {
	files   []string
	query   string
	hasQ    bool
	csv     bool
	json    bool
	output  string
	opts    []tracesql.Option
	help    bool
	verbose bool
	hasUnit bool
}

// parseSQLArgs parses the options sql and the Parquet export share; the
// files are every other argument (after "--", all of them).
func parseSQLArgs(cmd string, args []string) (*sqlConfig, error) {
	c := &sqlConfig{}
	files := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if files || !strings.HasPrefix(a, "-") || a == "-" {
			c.files = append(c.files, a)
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			name, value, hasValue = strings.Cut(a, "=")
		}
		needs := map[string]bool{"-c": true, "--command": true, "--cycles": true, "--unit": true, "-o": true, "--output": true, "--format": true}
		if needs[name] && !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("option %s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch {
		case name == "--":
			files = true
		case name == "-h" || name == "--help":
			c.help = true
		case (name == "-c" || name == "--command") && cmd == "sql":
			c.query, c.hasQ = value, true
		case name == "--csv" && cmd == "sql":
			c.csv = true
		case name == "--json" && cmd == "sql":
			c.json = true
		case name == "--cycles":
			a, b, err := tracesql.ParseCycles(value)
			if err != nil {
				return nil, errors.New("--" + err.Error())
			}
			c.opts = append(c.opts, tracesql.WithCycles(a, b))
		case name == "--unit":
			// tracesql takes one --unit (in the other commands' syntax).
			if c.hasUnit {
				return nil, fmt.Errorf("--unit %q: %s takes one --unit", value, cmd)
			}
			if err := unitsel.Check(value); err != nil {
				return nil, fmt.Errorf("--unit %q: %v", value, err)
			}
			c.hasUnit = true
			c.opts = append(c.opts, tracesql.WithUnit(value))
		case (name == "-o" || name == "--output") && cmd == "export":
			c.output = value
		case name == "--format" && cmd == "export":
			if value != "parquet" {
				return nil, fmt.Errorf("--format %q: this form of export writes parquet", value)
			}
		case (name == "-v" || name == "--verbose") && cmd == "export":
			c.verbose = true
		default:
			return nil, fmt.Errorf("unknown option %q", a)
		}
	}
	if c.help {
		return c, nil
	}
	if c.csv && c.json {
		return nil, errors.New("--csv and --json exclude each other")
	}
	if len(c.files) == 0 {
		return nil, errors.New("missing trace file")
	}
	return c, nil
}

func sqlMain(args []string, stdout, stderr io.Writer) int {
	c, err := parseSQLArgs("sql", args)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: sql: %s\n%s\n", oneLine(err.Error()), usageHint("sql"))
		return 2
	}
	if c.help {
		writeSQLHelp(stdout)
		return 0
	}
	db, err := tracesql.Open(c.files, c.opts...)
	if err != nil {
		fmt.Fprintf(stderr, "trace_reader: %s\n", oneLine(err.Error()))
		return 1
	}
	defer db.Close()
	out := &resultWriter{w: stdout, csv: c.csv, json: c.json}
	switch {
	case c.hasQ:
		err = runQuery(db, c.query, out)
	case isTerminal(os.Stdin) && stdout == os.Stdout && isTerminal(os.Stdout):
		err = interactive(db, stdout)
	default:
		var b []byte
		if b, err = io.ReadAll(os.Stdin); err == nil {
			err = runQuery(db, string(b), out)
		}
	}
	if err != nil && !isBrokenPipe(err) {
		fmt.Fprintf(stderr, "trace_reader: sql: %s\n", sqlErrLine(err))
		return 1
	}
	return 0
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
