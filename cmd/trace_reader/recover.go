package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/rewrite"
)

// recoverFile writes a complete copy of c.file to c.output: the schema and
// every complete block, a footer indexing them and a header pointing at
// both. The torn tail, if any, is dropped. The copy is written to a
// temporary file next to the output and renamed into place. A damaged
// block (one that does not decode, or fails its checksum) is left out and
// named on stderr, one warning line each; the exit status is still 0, as
// the output holds every block that reads.
func recoverFile(c *config, stdout, stderr io.Writer) error {
	return quietWhenDying(recoverTo(c, stdout, stderr))
}

func recoverTo(c *config, stdout, stderr io.Writer) error {
	if err := notInput(c.file, c.output); err != nil {
		return err
	}
	r, err := openTrace(c, c.file, mmapio.WithRepair()) // a rejected footer is rebuilt from the blocks
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := createOutput(c.file, c.output)
	if err != nil {
		return err
	}
	rw, err := rewrite.Complete(out, r, time.Now())
	if err == nil && out.tmp != "" {
		if fi, serr := os.Stat(c.file); serr == nil {
			err = out.f.Chmod(fi.Mode().Perm()) // the copy is as readable as the original
		}
	}
	if err != nil {
		out.abort()
		var fe *mmapio.FaultError
		if errors.As(err, &fe) { // the input shrank: its error names it
			return err
		}
		return fmt.Errorf("recover: writing %s: %w", c.output, pathErr(err))
	}
	if err := out.commit(true); err != nil {
		return err
	}
	st := r.Status()
	if st.State == mmapio.StateRecovered && strings.HasPrefix(st.Why, "the footer is rejected") {
		// Damage, not a cut: the footer's unit_stats and timestamp are lost.
		fmt.Fprintf(stderr, "trace_reader: warning: recover rebuilt the footer of %s: %s\n", c.file, oneLine(st.Why))
	}
	if tornByDamage(st) {
		fmt.Fprintf(stderr, "trace_reader: warning: recover left out the blocks of %s from byte %d on: %s\n", c.file, st.TornOffset, oneLine(st.TornReason))
	}
	for _, e := range rw.Dropped {
		fmt.Fprintf(stderr, "trace_reader: warning: recover left out %v\n", oneLine(e.Error()))
	}
	if c.json {
		rep := recoverReport{Input: c.file, Status: st.String(), Recovered: st.State != mmapio.StateComplete,
			Output: c.output, Blocks: rw.Blocks, Events: rw.Events, Bytes: rw.Bytes, LeftOut: []string{}}
		for _, e := range rw.Dropped {
			rep.LeftOut = append(rep.LeftOut, e.Error())
		}
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s: %s\n", c.file, st)
	fmt.Fprintf(stdout, "wrote %s: %d blocks, %d events, %d bytes", c.output, rw.Blocks, rw.Events, rw.Bytes)
	if len(rw.Dropped) > 0 {
		fmt.Fprintf(stdout, " (%d damaged block%s left out)", len(rw.Dropped), plural(len(rw.Dropped)))
	}
	fmt.Fprintln(stdout)
	return nil
}

// recoverReport is what recover --json prints once the output is in place.
type recoverReport struct {
	Input     string   `json:"input" doc:"The file recovered"`
	Status    string   `json:"status" doc:"What reading it found: complete, or recovered: N blocks, ... (what recovery found and ignored)"`
	Recovered bool     `json:"recovered" doc:"It had no usable footer: its blocks were found by walking them"`
	Output    string   `json:"output" doc:"The complete file written (-o)"`
	Blocks    int      `json:"blocks" doc:"Blocks written"`
	Events    uint64   `json:"events" doc:"Events written"`
	Bytes     int64    `json:"bytes" doc:"Bytes written"`
	LeftOut   []string `json:"left_out" doc:"The damaged blocks left out, one message each (where and why)"`
}
