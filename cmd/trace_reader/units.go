package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The --unit filter. Given several times it selects the units any value
// selects. The syntax is CHRONON_TRACE's units= (internal/unitsel, one
// matcher for both, so that filtering a full trace reproduces a recorded
// selection), on the whole unit name (with several files, the labelled
// name) for =NAME and patterns (*, ?, [); any other value matches names
// that contain it, as the original tool's --unit did, and so does a
// pattern's own text (--unit 'ROB[0]' finds ROB[0].Top.incoming). A
// backslash escapes the next character, as in units=.

// addUnit records a --unit value; a malformed one is a usage error.
func addUnit(c *config, v string) error {
	if err := unitsel.Check(v); err != nil {
		return usagef("--unit %q: %v", v, err)
	}
	c.units, c.hasUnit = append(c.units, v), true
	return nil
}

// unitMatches reports whether name passes --unit (always, without it).
// Units without a name never match a --unit.
func (c *config) unitMatches(name string) bool {
	if !c.hasUnit {
		return true
	}
	if name == "" {
		return false
	}
	for _, v := range c.units {
		if unitsel.Filter(v, name) {
			return true
		}
	}
	return false
}

// unitIDs returns the ids of r's units --unit selects.
func unitIDs(c *config, r *mmapio.Reader) []uint16 {
	var ids []uint16
	seen := map[uint16]bool{}
	for _, u := range r.Units() {
		if !seen[u.ID] && c.unitMatches(r.UnitName(u.ID)) {
			ids = append(ids, u.ID)
		}
		seen[u.ID] = true
	}
	return ids
}

// multiUnitIDs is unitIDs of each file of m, by labelled name, and how
// many matched in all.
func multiUnitIDs(c *config, m *mmapio.Multi) (ids [][]uint16, n int) {
	ids = make([][]uint16, m.Len())
	for i, r := range m.Readers() {
		seen := map[uint16]bool{}
		for _, u := range r.Units() {
			if !seen[u.ID] && r.UnitName(u.ID) != "" && c.unitMatches(m.UnitName(i, u.ID)) {
				ids[i] = append(ids[i], u.ID)
			}
			seen[u.ID] = true
		}
		n += len(ids[i])
	}
	return ids, n
}

// unitScope is what a --unit was tried on, for the error when it matched
// nothing: the files, their labels (nil for one file) and every unit name,
// labelled as --unit saw it.
type unitScope struct {
	files, labels, names []string
}

// readerNames is every named unit of r, in schema order, once each.
func readerNames(r *mmapio.Reader) []string {
	var names []string
	seen := map[uint16]bool{}
	for _, u := range r.Units() {
		if n := r.UnitName(u.ID); !seen[u.ID] && n != "" {
			names = append(names, n)
		}
		seen[u.ID] = true
	}
	return names
}

// multiNames is every named unit of m's files, labelled, in file order.
func multiNames(m *mmapio.Multi) []string {
	var names []string
	for i, r := range m.Readers() {
		seen := map[uint16]bool{}
		for _, u := range r.Units() {
			if !seen[u.ID] && r.UnitName(u.ID) != "" {
				names = append(names, m.UnitName(i, u.ID))
			}
			seen[u.ID] = true
		}
	}
	return names
}

// shownUnits and shownFiles: how many names and files an error lists
// before it says how many there are.
const shownUnits, shownFiles = 4, 4

// noUnitError is the error for a --unit no unit matches (status 1, as
// grep's "no match": an empty result would look like a quiet stretch). It
// names every file read, their labels, and a few of the names there are:
// with several files or a merged one the names are labelled, which a
// pattern written for one file's names misses; a --unit that would match
// (the pattern after the labels, a file name read as its label) is offered.
func noUnitError(c *config, sc unitScope) error {
	var b strings.Builder
	b.WriteString(listed(sc.files, shownFiles, "files"))
	b.WriteString(": no unit name")
	if len(sc.files) > 1 {
		fmt.Fprintf(&b, " in any of the %d files", len(sc.files))
	}
	for i, v := range c.units {
		if i > 0 {
			b.WriteString(" or")
		}
		b.WriteString(" " + unitsel.Describe(v))
	}
	if len(sc.labels) > 0 {
		ls := make([]string, len(sc.labels))
		for i, l := range sc.labels {
			ls[i] = esc(l) + " (" + sc.files[i] + ")"
		}
		fmt.Fprintf(&b, "; units are named LABEL/UNIT, the labels: %s", strings.Join(ls[:min(len(ls), shownFiles)], ", "))
		if len(ls) > shownFiles {
			b.WriteString(", ...")
		}
	}
	switch {
	case len(sc.names) == 0:
		b.WriteString("; the file has no named unit")
	case len(sc.names) <= shownUnits:
		fmt.Fprintf(&b, "; the units are %s", esc(strings.Join(sc.names, ", ")))
	default:
		fmt.Fprintf(&b, "; the units are %s, ... (%d units; `trace_reader info -v` lists them)",
			esc(strings.Join(sc.names[:shownUnits], ", ")), len(sc.names))
	}
	if v, n := unitSuggestion(c, sc); n > 0 {
		fmt.Fprintf(&b, "; --unit %q would match %d unit%s", v, n, plural(n))
	}
	if slices.ContainsFunc(c.units, unitsel.HasSet) && bracketName(sc.names) {
		b.WriteString("; in a pattern [...] is a set of characters: write \\[ and \\] for brackets in a name (--unit 'ROB\\[*\\].head')")
	}
	return fmt.Errorf("%s", b.String())
}

// listed is up to max items joined, then ", ... (N what)".
func listed(items []string, max int, what string) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, ... (%d %s)", strings.Join(items[:max], ", "), len(items), what)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pluralVerb is a present-tense verb's ending after n things ("1 span
// ends", "2 spans end"); pronoun the pronoun for them.
func pluralVerb(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// unitSuggestion is a --unit value close to one given that matches some
// of sc's names, and how many: a pattern that matches names once their
// label is cut off gets a */ for each label, a value that starts with a
// file's name (r3/) gets that file's label (rank3/) instead.
func unitSuggestion(c *config, sc unitScope) (string, int) {
	for _, v := range c.units {
		var cand []string
		if unitsel.IsPattern(v) {
			for _, name := range sc.names {
				for i := range len(name) {
					if name[i] != '/' {
						continue
					}
					if unitsel.Match(v, name[i+1:]) {
						cand = append(cand, strings.Repeat("*/", strings.Count(name[:i+1], "/"))+v)
					}
				}
			}
		}
		for i, f := range sc.files {
			base := strings.TrimSuffix(filepath.Base(f), ".ctrace")
			if i < len(sc.labels) && base != sc.labels[i] && strings.HasPrefix(v, base+"/") {
				cand = append(cand, sc.labels[i]+v[len(base):])
			}
		}
		for _, s := range cand {
			try := config{hasUnit: true}
			if addUnit(&try, s) != nil {
				continue
			}
			n := 0
			for _, name := range sc.names {
				if try.unitMatches(name) {
					n++
				}
			}
			if n > 0 {
				return s, n
			}
		}
	}
	return "", 0
}

// bracketName reports whether a unit name has a '[': with a pattern that
// has a set of characters (unitsel.HasSet), the likely slip of a user
// writing a name like ROB[*].head as a pattern.
func bracketName(names []string) bool {
	for _, n := range names {
		if strings.ContainsRune(n, '[') {
			return true
		}
	}
	return false
}
