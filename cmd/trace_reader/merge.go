package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/rewrite"
)

// mergeFiles runs `merge -o OUT FILE...`: one trace holding every event of
// the files (rewrite.Merge), written under a temporary name and
// renamed into place when complete.
func mergeFiles(c *config, stdout, stderr io.Writer) error {
	return quietWhenDying(mergeTo(c, stdout, stderr))
}

// quietWhenDying drops the error of a command interrupted by SIGINT or
// SIGTERM: the handler removed its temporary output under it, so the
// rename (or the fsync before it, which takes long on a large output)
// fails with "no such file or directory", which means nothing to the user
// who pressed ^C. The process dies of the signal, silently, as the other
// commands do.
func quietWhenDying(err error) error {
	if err != nil && dying.Load() {
		return &exitError{code: 1}
	}
	return err
}

func mergeTo(c *config, stdout, stderr io.Writer) error {
	for _, in := range c.files {
		if err := notInput(in, c.output); err != nil {
			return err
		}
	}
	if _, direct := placement(c.output); direct {
		// The header, written last, points at the footer: the output is
		// written, then its first bytes again.
		return usagef("-o %s: merge writes a regular file (it seeks back to write the header)", c.output)
	}
	m, err := openMulti(c)
	if err != nil {
		return err
	}
	defer m.Close()
	reportRecovered(m, stderr)
	out, err := createOutput(c.file, c.output)
	if err != nil {
		return err
	}
	res, err := rewrite.Merge(out.f, m, rewrite.MergeOptions{Created: time.Now(), NoVerify: c.noVerify})
	if err != nil {
		out.abort()
		var fe *mmapio.FaultError
		if errors.As(err, &fe) { // an input shrank: its error names it
			return err
		}
		return fmt.Errorf("merge: writing %s: %w", c.output, pathErr(err))
	}
	if err := out.commit(true); err != nil {
		return err
	}
	if c.verbose {
		for i := range m.Len() {
			fmt.Fprintf(stderr, "%s: %s\n", esc(mmapio.Labels(m.Readers())[i]), m.Reader(i).Path())
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d files, %d events, %d blocks (%d copied, %d renumbered), %d bytes\n",
		c.output, m.Len(), res.Events, res.Blocks, res.Copied, res.Rewritten, res.Bytes)
	return nil
}

// reportRecovered says, one line each, which inputs were recovered (cut
// short: no footer, perhaps a torn tail) and are merged as far as they
// were: the output is a complete file, so nothing else would tell that
// part of a run is missing. rewrite.Merge keeps the same text in the
// output's metadata.
func reportRecovered(m *mmapio.Multi, stderr io.Writer) {
	labels := mmapio.Labels(m.Readers())
	for i, r := range m.Readers() {
		if st := r.Status(); st.State != mmapio.StateComplete {
			fmt.Fprintf(stderr, "trace_reader: merge: %s\n", oneLine(fmt.Sprintf(
				"%s (%s): merged what was recovered of it (noted as %s/%s in the output's metadata): %s",
				r.Path(), esc(labels[i]), esc(labels[i]), rewrite.MetaRecovered, st)))
		}
	}
}
