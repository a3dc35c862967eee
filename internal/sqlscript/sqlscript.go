// Package sqlscript splits a script of trace_reader sql (-c QUERY, or
// standard input) as the duckdb shell reads one: SQL statements end with
// ';', and a line that starts with '.' where no statement is under way is a
// dot command (.tables, .schema T). The SQL between two dot commands runs
// as one query, which prints the result of its last statement. It is its
// own package so that its fuzz target builds without DuckDB.
package sqlscript

import (
	"strings"
)

// Item is a run of SQL or one dot command.
type Item struct {
	SQL string
	Dot string // the dot command's line, trimmed ("" for SQL)
}

// Split splits a script into its SQL runs and dot commands, in order.
// SQL that is only blanks and comments is left out.
func Split(script string) []Item {
	var items []Item
	var pending strings.Builder
	flush := func() {
		if s := pending.String(); HasStatement(s) {
			items = append(items, Item{SQL: s})
		}
		pending.Reset()
	}
	for line := range strings.Lines(script) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, ".") && !statementOpen(pending.String()) {
			flush()
			items = append(items, Item{Dot: trimmed})
			continue
		}
		pending.WriteString(line)
	}
	flush()
	return items
}

// sqlScan walks SQL text outside string literals, quoted identifiers and
// comments, calling f with each byte of code (and its offset); it returns
// whether the text ends inside a literal, identifier or comment.
func sqlScan(s string, f func(i int, c byte)) (open bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], c)
				if k < 0 {
					return true
				}
				j += k + 1
				if j < len(s) && s[j] == c { // doubled: an escaped quote
					j++
					continue
				}
				break
			}
			f(i, 'x') // a literal is code: a statement is under way
			i = j
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			k := strings.IndexByte(s[i:], '\n')
			if k < 0 {
				return false // a line comment ends with the text
			}
			i += k + 1
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			depth, j := 1, i+2
			for depth > 0 {
				switch {
				case j >= len(s):
					return true
				case strings.HasPrefix(s[j:], "/*"):
					depth, j = depth+1, j+2
				case strings.HasPrefix(s[j:], "*/"):
					depth, j = depth-1, j+2
				default:
					j++
				}
			}
			i = j
		case c == '$':
			// A dollar-quoted string: $$...$$ or $tag$...$tag$.
			k := strings.IndexByte(s[i+1:], '$')
			tag := ""
			if k >= 0 {
				tag = s[i : i+1+k+1]
			}
			if tag == "" || !dollarTag(tag) {
				f(i, c)
				i++
				continue
			}
			end := strings.Index(s[i+len(tag):], tag)
			if end < 0 {
				return true
			}
			f(i, 'x')
			i += len(tag) + end + len(tag)
		default:
			f(i, c)
			i++
		}
	}
	return false
}

// dollarTag reports whether t ($$, $name$) opens a dollar-quoted string.
func dollarTag(t string) bool {
	for i := 1; i < len(t)-1; i++ {
		c := t[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 1 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// statementOpen reports whether s ends in the middle of a statement: inside
// a literal or a comment, or after code not closed by ';'.
func statementOpen(s string) bool {
	var last byte = ';'
	open := sqlScan(s, func(_ int, c byte) {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = c
		}
	})
	return open || last != ';'
}

// hasStatement reports whether s holds any code (not only blanks,
// comments and ';').
func HasStatement(s string) bool {
	code := false
	open := sqlScan(s, func(_ int, c byte) {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ';' {
			code = true
		}
	})
	return code || open
}
