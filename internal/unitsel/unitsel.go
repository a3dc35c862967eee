// Package unitsel matches unit names against unit patterns as
// CHRONON_TRACE's units= does (path.Match on the whole name: '*', '?',
// '[...]'; '.' and '/' are ordinary characters to the writer but '*' does
// not cross a '/'). One matcher for the writer, which selects units when
// they are registered, and for trace_reader, whose --unit patterns
// reproduce a selection and whose info counts what a recorded one kept:
// if they drifted apart, a filter would no longer reproduce a recording.
package unitsel

import (
	"path"
	"strings"
)

// Key is the metadata key of a recorded selection (chronon.MetadataSelect;
// repeated here so that readers need not import the writer).
const Key = "chronon.select"

// Check returns pattern's syntax error (path.ErrBadPattern), or nil.
func Check(pattern string) error {
	_, err := path.Match(pattern, "")
	return err
}

// Match reports whether name matches pattern; a malformed pattern matches
// nothing (Check rejects it first).
func Match(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// Any reports whether name matches any of patterns.
func Any(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}

// Patterns returns the units= patterns of a recorded selection (the value
// of Key: key=value parts separated by ';', lists by ','), and whether it
// has a units= part (without one every unit was kept).
func Patterns(selection string) ([]string, bool) {
	for _, part := range strings.Split(selection, ";") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || strings.TrimSpace(key) != "units" {
			continue
		}
		var ps []string
		for _, p := range strings.Split(val, ",") {
			if p = strings.TrimSpace(p); p != "" {
				ps = append(ps, p)
			}
		}
		return ps, true
	}
	return nil, false
}

// Count returns how many of names match any of patterns.
func Count(patterns, names []string) int {
	n := 0
	for _, name := range names {
		if Any(patterns, name) {
			n++
		}
	}
	return n
}

// Widen returns a units= value close to patterns that matches some of
// names, and how many: each pattern with a '*' after it (core1 matches
// core1.fetch as core1*), else around it (*core1*). "" when none does.
func Widen(patterns, names []string) (string, int) {
	for _, wrap := range []func(string) string{
		func(p string) string { return p + "*" },
		func(p string) string { return "*" + p + "*" },
	} {
		wide := make([]string, len(patterns))
		for i, p := range patterns {
			wide[i] = wrap(p)
		}
		if n := Count(wide, names); n > 0 {
			return strings.Join(wide, ","), n
		}
	}
	return "", 0
}
