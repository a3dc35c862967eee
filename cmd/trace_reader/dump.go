package main

import (
	"fmt"
	"io"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// dump runs dump, filter and convert: the events the filters select, in
// cycle order, one line each as the original printed them. convert ignores
// --limit.
func dump(c *config, w io.Writer, stderr io.Writer) error {
	r, err := mmapio.Open(c.file)
	if err != nil {
		return err
	}
	defer r.Close()
	q := query(c, r)
	limit := c.limit
	if c.command == "convert" {
		limit = 0
	}
	n, err := r.WriteDump(w, q, limit)
	if err != nil {
		return err
	}
	if c.verbose {
		fmt.Fprintf(stderr, "Dumped %d events\n", n)
	}
	return nil
}

func query(c *config, r *mmapio.Reader) mmapio.Query {
	var q mmapio.Query
	if c.hasCycles {
		q = q.WithCycles(c.start, c.end)
	}
	if c.hasUnit {
		q = q.WithUnits(r.UnitsNamed(c.unit)...)
	}
	return q
}
