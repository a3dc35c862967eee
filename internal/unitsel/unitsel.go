// Package unitsel matches unit names as users write them, with one syntax
// for CHRONON_TRACE's units= (which selects units when they are registered)
// and for trace_reader's --unit and the SQL tables' unit parameter (which
// filter a trace): if they drifted apart, a filter would no longer
// reproduce a recording.
//
//	=NAME     exactly the unit NAME: '*', '?', '[' and ']' are plain characters
//	PATTERN   with '*', '?' or '[': path.Match ('*' does not cross a '/');
//	          a unit whose name is PATTERN's text itself matches too, so
//	          ROB[0].Top.incoming finds the unit of that name
//	\c        the character c, whatever it is (\*, \[, \\, \, in a list)
//	other     units=: the whole name; --unit: names that contain it
//
// A backslash escapes the next character everywhere, as in path.Match:
// units=core\1.fetch and --unit 'core\1.fetch' both mean core1.fetch.
package unitsel

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Key is the metadata key of a recorded selection (chronon.MetadataSelect;
// repeated here so that readers need not import the writer).
const Key = "chronon.select"

// Check returns what is wrong with a pattern (path.ErrBadPattern, a
// trailing backslash, an empty =), or nil.
func Check(pattern string) error {
	if name, ok := strings.CutPrefix(pattern, "="); ok {
		if name == "" {
			return errors.New("= with no name after it")
		}
		if trailingEscape(name) {
			return errors.New(`a trailing \ escapes nothing`)
		}
		return nil
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("%w (for a name with [ in it: =NAME, or \\[)", err)
	}
	return nil
}

// Match reports whether pattern selects the whole name, as units= does. A
// malformed pattern matches nothing (Check rejects it first).
func Match(pattern, name string) bool {
	if exact, ok := strings.CutPrefix(pattern, "="); ok {
		return Unescape(exact) == name
	}
	ok, err := path.Match(pattern, name)
	if err != nil {
		return false
	}
	return ok || IsPattern(pattern) && Unescape(pattern) == name
}

// trailingEscape reports whether s ends with a backslash that escapes
// nothing (an odd run of them).
func trailingEscape(s string) bool {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return n%2 == 1
}

// Filter reports whether a --unit value selects name: an exact =NAME, a
// pattern on the whole name (or contained as written), else the names
// that contain the value.
func Filter(value, name string) bool {
	switch {
	case strings.HasPrefix(value, "="):
		return Match(value, name)
	case IsPattern(value):
		ok, err := path.Match(value, name)
		if err != nil {
			return false
		}
		if ok {
			return true
		}
	}
	return strings.Contains(name, Unescape(value))
}

// IsPattern reports whether v has an unescaped '*', '?' or '[' (and is not
// an exact =NAME).
func IsPattern(v string) bool { return hasUnescaped(v, "*?[") }

// HasSet reports whether v, read as a pattern, has a set of characters
// ([...]): the likely slip of a user writing a name like ROB[0].head as a
// pattern, whom messages tell to escape the brackets.
func HasSet(v string) bool { return hasUnescaped(v, "[") }

// hasUnescaped reports whether v has one of chars outside a backslash
// escape, and is not an exact =NAME.
func hasUnescaped(v, chars string) bool {
	if strings.HasPrefix(v, "=") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
		} else if strings.IndexByte(chars, v[i]) >= 0 {
			return true
		}
	}
	return false
}

// Describe says how a --unit value selects, for messages: `contains "x"`,
// `matches "x*"` or `is "x"`.
func Describe(value string) string {
	switch {
	case strings.HasPrefix(value, "="):
		return fmt.Sprintf("is %q", Unescape(value[1:]))
	case IsPattern(value):
		return fmt.Sprintf("matches %q", value)
	}
	return fmt.Sprintf("contains %q", Unescape(value))
}

// Unescape removes the backslashes: each escapes the character after it
// (a trailing one stands for itself).
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// QuoteMeta escapes what would not stand for itself in a pattern or a
// units= list: * ? [ \ , ;
func QuoteMeta(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if strings.IndexByte(`*?[\,;`, name[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// Split cuts s at each sep that no backslash escapes, keeping the escapes
// in the parts (Match reads them): units=a\,b,c is the patterns a\,b and c.
func Split(s string, sep byte) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
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
	for _, part := range Split(selection, ';') {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || strings.TrimSpace(key) != "units" {
			continue
		}
		var ps []string
		for _, p := range Split(val, ',') {
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
// core1.fetch as core1*), else around it (*core1*); an exact =NAME widens
// as NAME with its pattern characters escaped. "" when none does.
func Widen(patterns, names []string) (string, int) {
	for _, wrap := range []func(string) string{
		func(p string) string { return p + "*" },
		func(p string) string { return "*" + p + "*" },
	} {
		wide := make([]string, len(patterns))
		for i, p := range patterns {
			if exact, ok := strings.CutPrefix(p, "="); ok {
				p = QuoteMeta(Unescape(exact))
			}
			wide[i] = wrap(p)
		}
		if n := Count(wide, names); n > 0 {
			return strings.Join(wide, ","), n
		}
	}
	return "", 0
}
