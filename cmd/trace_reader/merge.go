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
	_, direct := placement(c.output)
	if direct && !seekable(c.output) {
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
		if errors.Is(err, mmapio.ErrChecksum) { // a damaged input: what to do about it
			return fmt.Errorf("merge: writing %s: %w (trace_reader recover FILE -o FIXED writes a copy without the damaged blocks, to merge instead)", c.output, pathErr(err))
		}
		return fmt.Errorf("merge: writing %s: %w", c.output, pathErr(err))
	}
	if err := out.commit(true); err != nil {
		return err
	}
	if direct {
		// Written through a descriptor (-o /dev/stdout > m.ctrace), which
		// may be stdout: the output is the trace alone, the report goes
		// to stderr.
		stdout = stderr
	}
	if c.verbose {
		for i := range m.Len() {
			fmt.Fprintf(stderr, "%s: %s\n", esc(mmapio.Labels(m.Readers())[i]), m.Reader(i).Path())
		}
	}
	if c.json {
		rep := mergeReport{Output: c.output, Events: res.Events, Blocks: res.Blocks, Copied: res.Copied, Renumbered: res.Rewritten, Bytes: res.Bytes}
		labels := mmapio.Labels(m.Readers())
		for i, r := range m.Readers() {
			st := r.Status()
			rep.Inputs = append(rep.Inputs, mergeInput{File: r.Path(), Label: labels[i], Events: st.Events,
				Recovered: st.State != mmapio.StateComplete, Status: st.String()})
		}
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "wrote %s: %d files, %d events, %d blocks (%d copied, %d renumbered), %d bytes\n",
		c.output, m.Len(), res.Events, res.Blocks, res.Copied, res.Rewritten, res.Bytes)
	return nil
}

// mergeReport is what merge --json prints once the output is in place.
type mergeReport struct {
	Output     string       `json:"output" doc:"The merged trace (-o)"`
	Inputs     []mergeInput `json:"inputs" doc:"The files merged, in command line order"`
	Events     uint64       `json:"events" doc:"Events written"`
	Blocks     int          `json:"blocks" doc:"Blocks written"`
	Copied     int          `json:"copied_blocks" doc:"Blocks copied as they were (no id needed a change)"`
	Renumbered int          `json:"renumbered_blocks" doc:"Blocks decoded, their ids renumbered, encoded again"`
	Bytes      int64        `json:"bytes" doc:"Bytes written"`
}

type mergeInput struct {
	File      string `json:"file" doc:"The path as given"`
	Label     string `json:"label" doc:"Its label: its units are <label>/<unit> in the output"`
	Events    uint64 `json:"events" doc:"Its events"`
	Recovered bool   `json:"recovered" doc:"It had no usable footer: what was recovered of it was merged (stderr says so too)"`
	Status    string `json:"status" doc:"complete, or what recovery found and ignored"`
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
