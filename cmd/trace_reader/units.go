package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// The --unit filter. Given several times it selects the units any value
// matches. A value with *, ? or [ is a path.Match pattern on the whole
// unit name (with several files, the labelled name), as CHRONON_TRACE's
// units= patterns are, so that filtering a full trace reproduces a
// recorded selection; any other value matches names that contain it, as
// the original tool's --unit did.

// isUnitPattern reports whether a --unit value is a pattern.
func isUnitPattern(v string) bool { return strings.ContainsAny(v, "*?[") }

// addUnit records a --unit value; a malformed pattern is a usage error.
func addUnit(c *config, v string) error {
	if isUnitPattern(v) {
		if _, err := path.Match(v, ""); err != nil {
			return usagef("--unit %q: %v", v, err)
		}
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
		if isUnitPattern(v) {
			if ok, _ := path.Match(v, name); ok {
				return true
			}
		} else if strings.Contains(name, v) {
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

// noUnitError is the error for a --unit no unit matches (status 1, as
// grep's "no match": an empty result would look like a quiet stretch).
func noUnitError(c *config, files string) error {
	var b strings.Builder
	for i, v := range c.units {
		if i > 0 {
			b.WriteString(" or")
		}
		if isUnitPattern(v) {
			fmt.Fprintf(&b, " matches %q", v)
		} else {
			fmt.Fprintf(&b, " contains %q", v)
		}
	}
	return fmt.Errorf("%s: no unit name%s", files, b.String())
}
