package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/rewrite"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// Several files given to a reading command are one timeline (mmapio.Multi):
// events merged by cycle, ties in file order then each file's order, units
// named <label>/<unit>. With one file nothing changes: the commands run
// their single-file code, byte for byte.

// exitError ends the tool with a status of its own (diff: 1 = different,
// 2 = error) and, when msg is set, one line on stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// openMulti opens every file of the command line as one timeline.
func openMulti(c *config) (*mmapio.Multi, error) {
	m, err := mmapio.OpenAll(c.files, readerOptions(c)...)
	if err == nil {
		for _, r := range m.Readers() {
			warnDamaged(c, r)
		}
	}
	return m, err
}

// multiQueries is the command line's filter for each file: --unit matches
// the labelled names; none matching is an error, as for one file.
func multiQueries(c *config, m *mmapio.Multi) ([]mmapio.Query, error) {
	var q mmapio.Query
	if c.hasCycles {
		q = q.WithCycles(c.start, c.end)
	}
	if !c.hasUnit {
		return m.Queries(q, nil), nil
	}
	ids, n := multiUnitIDs(c, m)
	if n == 0 {
		return nil, noUnitError(c, unitScope{files: c.files, labels: mmapio.Labels(m.Readers()), names: multiNames(m)})
	}
	return m.Queries(q, ids), nil
}

// dumpMulti is dump, filter and convert over several files.
func dumpMulti(c *config, w io.Writer, stderr io.Writer) error {
	m, err := openMulti(c)
	if err != nil {
		return err
	}
	defer m.Close()
	qs, err := multiQueries(c, m)
	if err != nil {
		return err
	}
	limit := c.limit
	if c.command == "convert" {
		limit = 0
	}
	n, err := tracetext.WriteMultiDump(w, m, limit, qs...)
	if err != nil {
		return err
	}
	if c.verbose {
		fmt.Fprintf(stderr, "Dumped %d events\n", n)
	}
	return nil
}

// infoFiles runs info on each file in turn; with several, each file's
// section says its label (what its units are called in the timeline).
func infoFiles(c *config, w io.Writer) error {
	if len(c.files) == 1 {
		if c.json {
			return writeInfoJSON(c, w, nil)
		}
		return info(c, w)
	}
	m, err := openMulti(c)
	if err != nil {
		return err
	}
	labels := mmapio.Labels(m.Readers())
	m.Close()
	if c.json {
		return writeInfoJSON(c, w, labels)
	}
	for i, f := range c.files {
		if i > 0 {
			fmt.Fprintf(w, "\n")
		}
		one := *c
		one.file, one.files, one.label = f, []string{f}, labels[i]
		if err := info(&one, w); err != nil {
			return err
		}
	}
	return nil
}

// openInput opens what stats and export read: the file, or several merged
// into a temporary trace (in dir, or the system's temporary directory when
// dir is "") whose name is removed at once: the mapping keeps it until the
// Reader is closed. Renumbered blocks are stored raw there: it is read once.
// labels are the files' labels (nil for one file).
func openInput(c *config, dir string) (r *mmapio.Reader, labels []string, err error) {
	if len(c.files) == 1 {
		r, err = openTrace(c, c.file)
		return r, nil, err
	}
	m, err := openMulti(c)
	if err != nil {
		return nil, nil, err
	}
	labels = mmapio.Labels(m.Readers())
	defer m.Close()
	f, err := os.CreateTemp(dir, ".trace_reader-merge-*.ctrace")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create a temporary file to merge into: %w", err)
	}
	name := f.Name()
	defer os.Remove(name)
	if _, err := rewrite.Merge(f, m, rewrite.MergeOptions{RawRewrites: true, Created: time.Now()}); err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := f.Close(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	r, err = openTrace(c, name)
	return r, labels, mergedInputs(c, name, err)
}

// mergedInputs names, in err of a command that read c's files merged into
// the temporary trace merged (openInput), the inputs instead of that file:
// the user never saw it. Errors of one file are left as they are.
func mergedInputs(c *config, merged string, err error) error {
	if err == nil || len(c.files) == 1 || !strings.Contains(err.Error(), merged) {
		return err
	}
	return &renamedError{strings.ReplaceAll(err.Error(), merged, strings.Join(c.files, ", ")+" (merged)"), err}
}

// tempDirFor is where export merges its inputs: beside its output, where
// it writes its temporaries too ("" for a stream: the system's).
func tempDirFor(out string) string {
	target, direct := placement(out)
	if direct {
		return ""
	}
	return filepath.Dir(target)
}
