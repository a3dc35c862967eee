package main

import (
	"fmt"
	"io"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// dump runs dump, filter and convert: the events the filters select, in
// cycle order, one line each as the original printed them. convert ignores
// --limit.
func dump(c *config, w io.Writer, stderr io.Writer) error {
	r, err := openTrace(c, c.file)
	if err != nil {
		return err
	}
	defer r.Close()
	q, err := query(c, r, nil)
	if err != nil {
		return err
	}
	limit := c.limit
	if c.command == "convert" {
		limit = 0
	}
	n, err := tracetext.WriteDump(w, r, q, limit)
	if err != nil {
		return err
	}
	if c.verbose {
		fmt.Fprintf(stderr, "Dumped %d events\n", n)
	}
	return nil
}

// query is the command line's filter. A --unit that no unit name contains
// is an error (status 1, as grep's "no match"): an empty result would be
// indistinguishable from a misspelled name.
//
// r is c's file, or c's files merged (labels: theirs, as openInput's).
func query(c *config, r *mmapio.Reader, labels []string) (mmapio.Query, error) {
	var q mmapio.Query
	if c.hasCycles {
		q = q.WithCycles(c.start, c.end)
	}
	if c.hasUnit {
		ids := unitIDs(c, r)
		if len(ids) == 0 {
			return q, noUnitError(c, unitScope{files: c.files, labels: labels, names: readerNames(r)})
		}
		q = q.WithUnits(ids...)
	}
	return q, nil
}
