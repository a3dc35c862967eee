package main

import (
	"fmt"
	"io"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// exportTrace runs `export --format F [--cycles A-B] [--unit NAME]
// [--ns-per-cycle X] [--max-file-size BYTES] -o OUT FILE`.
func exportTrace(c *config, stdout, stderr io.Writer) error {
	r, err := mmapio.Open(c.file)
	if err != nil {
		return err
	}
	defer r.Close()
	first, last := cycleRange(r)
	p := progressFor(c, stderr, first, last)
	res, err := export.Export(r, query(c, r), c.output, export.WithFormat(c.format),
		export.WithNsPerCycle(c.nsPerCycle), export.WithMaxFileBytes(c.maxFileBytes), export.WithProgress(p.cycles()))
	p.done()
	if err != nil {
		return err
	}
	if res.TimeScale != 1 {
		fmt.Fprintf(stderr, "trace_reader: --ns-per-cycle %g would put several cycles in one nanosecond (viewers keep whole ns): exported at %g ns per cycle, times are %gx the simulated time\n",
			c.nsPerCycle, res.NsPerCycle, res.TimeScale)
	}
	if err := r.Err(); err != nil {
		return err
	}
	for _, f := range res.Files {
		fmt.Fprintln(stdout, f)
	}
	if c.verbose {
		fmt.Fprintf(stderr, "Exported %d events: %d instants, %d spans, %d counter samples, %d events with a flow; %d unmatched span ends, %d spans closed at the end\n",
			res.Events, res.Instants, res.Spans, res.Counters, res.FlowEvents, res.UnmatchedEnds, res.UnterminatedSpans)
	}
	return nil
}

// statsTrace runs `stats [--cycles A-B] [--unit NAME] [--json] FILE`.
func statsTrace(c *config, w, stderr io.Writer) error {
	r, err := mmapio.Open(c.file)
	if err != nil {
		return err
	}
	defer r.Close()
	first, last := cycleRange(r)
	p := progressFor(c, stderr, first, last)
	rep, err := analysis.Stats(r, query(c, r), analysis.WithProgress(p.cycles()))
	p.done()
	if err != nil {
		return err
	}
	if c.json {
		return analysis.WriteJSON(w, rep)
	}
	return analysis.WriteText(w, rep)
}

// cycleRange is the file's cycle span, from the footer or the recovered blocks.
func cycleRange(r *mmapio.Reader) (first, last uint64) {
	blocks := r.Blocks()
	if len(blocks) == 0 {
		return 0, 0
	}
	first, last = blocks[0].MinCycle, blocks[0].MaxCycle
	for _, b := range blocks {
		first, last = min(first, b.MinCycle), max(last, b.MaxCycle)
	}
	return first, last
}

// cycles adapts the bar to the exporter's and the analysis' progress, which
// report the cycles of the window done; the events so far are counted from
// the calls, which come every 65536 events.
func (p *progress) cycles() func(done, total uint64) {
	var calls uint64
	return func(done, total uint64) {
		if p == nil {
			return
		}
		calls++
		p.update(calls<<16, p.start+done)
	}
}
