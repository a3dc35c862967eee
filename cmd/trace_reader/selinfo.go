package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
)

// A units= selection that matches no unit (units=core1, the units being
// core1.fetch ...: patterns are on the whole name) records no event of
// them, and the run exits 0: at Create the units do not exist yet, so
// nothing can fail then. info makes it visible after the fact: beside the
// recorded selection, how many of the file's units its patterns kept (as
// the writer matched them: internal/unitsel), and a warning when none.

// selectionLabel reports whether a metadata key is a recorded selection:
// chronon.select, or <label>/chronon.select in a merged file (each input's
// metadata kept under its label), and the label ("" for the file's own).
func selectionLabel(key string) (label string, ok bool) {
	if key == unitsel.Key {
		return "", true
	}
	label, ok = strings.CutSuffix(key, "/"+unitsel.Key)
	return label, ok && label != ""
}

// selectionKept prints the units= count line of a recorded selection
// (nothing without units=): the patterns against the names of the units
// the selection was recorded for, label/ cut off in a merged file.
func selectionKept(w io.Writer, sel, label string, names []string) {
	patterns, ok := unitsel.Patterns(sel)
	if !ok {
		return
	}
	names = runNames(names, label)
	kept := unitsel.Count(patterns, names)
	fmt.Fprintf(w, "    units= kept %d of %d unit%s (patterns are path.Match on the whole name)\n", kept, len(names), plural(len(names)))
	if kept > 0 || len(names) == 0 {
		return
	}
	of := "this file"
	if label != "" {
		of = "the run " + esc(label) // a merged file: that input's units
	}
	fmt.Fprintf(w, "    Warning: units= matches no unit of %s: it holds none of their events", of)
	if wide, n := unitsel.Widen(patterns, names); n > 0 {
		fmt.Fprintf(w, "; units=%s would match %d", esc(wide), n)
	}
	fmt.Fprintf(w, "\n")
}

// runNames is names as the selection recorded under label saw them: in a
// merged file, the names of that run's units without their label/.
func runNames(names []string, label string) []string {
	if label == "" {
		return names
	}
	var own []string
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, label+"/"); ok {
			own = append(own, rest)
		}
	}
	return own
}
