package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// exportTrace runs `export --format F [--cycles A-B] [--unit NAME]
// [--ns-per-cycle X] [--max-file-size BYTES] -o OUT FILE`.
//
// The files are written into a temporary directory beside OUT and renamed
// into place once all are complete, so a failed or killed export leaves no
// part of any file under its final name. An output that cannot be renamed
// into place (a pipe, /dev/stdout) is written directly, in one piece.
func exportTrace(c *config, stdout, stderr io.Writer) (err error) {
	for _, in := range c.files {
		if err := notInput(in, c.output); err != nil {
			return err
		}
	}
	r, labels, err := openInput(c, tempDirFor(c.output))
	if err != nil {
		return err
	}
	defer func(merged string) { err = mergedInputs(c, merged, err) }(r.Path())
	defer r.Close()
	// The exporter reads arguments of uncompressed blocks straight from the
	// mapping: a file that shrinks meanwhile is an error, not SIGBUS.
	defer rawread.CatchFault(r, &err, rawread.PanicOnFault())
	q, err := query(c, r, labels)
	if err != nil {
		return err
	}
	first, last := cycleRange(r)
	p := progressFor(c, stderr, first, last)
	maxFile := c.maxFileBytes

	target, direct := placement(c.output)
	path := c.output
	var tmpDir string
	if direct {
		maxFile = 0 // a stream has no .part2
	} else {
		sweptTemps(c, stderr, filepath.Dir(target), filepath.Base(target))
		if _, tmpDir, err = createTemp(target, true); err != nil {
			return fmt.Errorf("%s: cannot create: %w", c.output, pathErr(err))
		}
		defer func() { os.RemoveAll(tmpDir); forgetTemp(tmpDir) }() // empty after a success
		path = filepath.Join(tmpDir, filepath.Base(target))
	}
	opts := []export.Option{export.WithFormat(c.format), export.WithMaxFileBytes(maxFile), export.WithProgress(p.cycles()),
		export.WithProcesses(labels)} // several runs: one process each
	if c.nsPerCycle != 0 { // given: it wins over the trace's time base
		opts = append(opts, export.WithNsPerCycle(c.nsPerCycle))
	}
	if base := processLimit.Load(); base > 0 {
		// What the export keeps live beyond the budget (Kanata's
		// instructions in flight) raises the limit: under it, the
		// collector would run without end.
		opts = append(opts, export.WithLiveState(func(n int64) { debug.SetMemoryLimit(base + n) }))
	}
	res, err := export.Export(r, q, path, opts...)
	p.done()
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		if tmpDir != "" { // name the output, not where it was being written
			err = &renamedError{strings.ReplaceAll(err.Error(), tmpDir, filepath.Dir(target)), err}
		}
		return err
	}
	if res.TimeScale != 1 {
		fmt.Fprintf(stderr, "trace_reader: --ns-per-cycle %g would put several cycles in one nanosecond (viewers keep whole ns): exported at %g ns per cycle, times are %gx the simulated time\n",
			c.nsPerCycle, res.NsPerCycle, res.TimeScale)
	}
	if n := res.RoundedTimestamps; n > 0 {
		warnRounded(stderr, c.nsPerCycle, r.Schema(), n)
	}
	if n := int(res.ImpossibleSpans); n > 0 {
		fmt.Fprintf(stderr, "trace_reader: warning: %s: %d complete span%s end%s before %s begin%s (%s), left out of the export; the first: %s\n",
			strings.Join(c.files, ", "), n, plural(n), pluralVerb(n), pronoun(n), pluralVerb(n), tracetext.ImpossibleSpanCause, oneLine(res.FirstImpossibleSpan))
	}
	files := res.Files
	if !direct {
		if files, err = placeParts(c, target, tmpDir, res.Files); err != nil {
			return err
		}
	}
	if !direct { // a stream (/dev/stdout, a pipe) must hold the export alone
		for _, f := range files {
			fmt.Fprintln(stdout, f)
		}
	}
	if c.verbose {
		fmt.Fprintf(stderr, "Exported %d events: %d instants, %d spans, %d counter samples, %d events with a flow; %d unmatched span ends, %d spans closed at the end\n",
			res.Events, res.Instants, res.Spans, res.Counters, res.FlowEvents, res.UnmatchedEnds, res.UnterminatedSpans)
		// What stats notes too: parent ids that drew no arrow, spans
		// begun before the window, spans left out as impossible.
		if res.ParentLinks+res.ParentsMissing > 0 {
			fmt.Fprintf(stderr, "Parents: %d links drawn (an arrow from the parent's begin), %d missing (the parent id named no span: never begun, outside the selection, or ended before the child began)\n",
				res.ParentLinks, res.ParentsMissing)
		}
		if res.ClippedSpans+res.ImpossibleSpans > 0 {
			fmt.Fprintf(stderr, "Spans: %d begun before the window (drawn from its start), %d complete spans ending before they begin (left out)\n",
				res.ClippedSpans, res.ImpossibleSpans)
		}
		if c.format == "kanata" {
			fmt.Fprintf(stderr, "Kanata: %d instructions (%d retired, %d flushed), %d dependencies (%d left out: producer not exported), %d flushes of instructions not shown\n",
				res.Instructions, res.Retired, res.Flushed, res.Dependencies, res.DependenciesDropped, res.FlushesIgnored)
		}
	}
	return nil
}

// renamedError is an error whose message names the final files.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// placeParts renames the complete files of an export from tmpDir to
// target's directory and returns their final names (the first as the user
// gave it). None is renamed if any would replace the input.
func placeParts(c *config, target, tmpDir string, parts []string) ([]string, error) {
	finals := make([]string, len(parts))
	for i, p := range parts {
		finals[i] = filepath.Join(filepath.Dir(target), filepath.Base(p))
		for _, in := range c.files {
			if err := notInput(in, finals[i]); err != nil {
				return nil, err
			}
		}
	}
	shown := make([]string, len(parts))
	for i, p := range parts {
		if err := os.Rename(p, finals[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", finals[i], pathErr(err))
		}
		shown[i] = finals[i]
		if filepath.Base(p) == filepath.Base(target) {
			shown[i] = c.output
		}
	}
	return shown, nil
}

// statsTrace runs `stats [--cycles A-B] [--unit NAME] [--json] FILE`.
func statsTrace(c *config, w, stderr io.Writer) (err error) {
	r, labels, err := openInput(c, "")
	if err != nil {
		return err
	}
	defer func(merged string) { err = mergedInputs(c, merged, err) }(r.Path())
	defer r.Close()
	// analysis reads arguments of uncompressed blocks straight from the
	// mapping: a file that shrinks meanwhile is an error, not SIGBUS.
	defer rawread.CatchFault(r, &err, rawread.PanicOnFault())
	first, last := cycleRange(r)
	p := progressFor(c, stderr, first, last)
	q, err := query(c, r, labels)
	if err != nil {
		return err
	}
	rep, err := analysis.Stats(r, q, analysis.WithProgress(p.cycles()))
	p.done()
	if err != nil {
		return err
	}
	if c.json {
		return analysis.WriteJSON(w, withEmptyArrays(rep))
	}
	return analysis.WriteText(w, rep)
}

// withEmptyArrays gives rep's nil lists their JSON form as the reference
// says, [] (encoding/json writes a nil slice as null).
func withEmptyArrays(rep *analysis.Report) *analysis.Report {
	orEmpty(&rep.Units)
	orEmpty(&rep.Formats)
	orEmpty(&rep.Spans)
	orEmpty(&rep.Occupancy)
	orEmpty(&rep.Stages)
	for i := range rep.Spans {
		orEmpty(&rep.Spans[i].Histogram)
	}
	for i := range rep.Stages {
		orEmpty(&rep.Stages[i].Histogram)
	}
	return rep
}

func orEmpty[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
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

// warnRounded says that n timestamps were rounded to whole nanoseconds,
// and, with a time base under a nanosecond, how to see every cycle at what
// cost to the time scale. A trace whose times are all whole nanoseconds
// (1 GHz clocks in picoseconds) rounds none and gets no warning.
func warnRounded(w io.Writer, nsPerCycle float64, s *schema.Schema, n uint64) {
	was := "were"
	if n == 1 {
		was = "was"
	}
	what := fmt.Sprintf("%d timestamp%s fell between two nanoseconds and %s rounded to the nearest", n, plural(int(n)), was)
	if nsPerCycle != 0 {
		fmt.Fprintf(w, "trace_reader: warning: --ns-per-cycle %g: %s (the viewers keep whole nanoseconds)\n", nsPerCycle, what)
		return
	}
	tb, ok := subNanosecondTick(s)
	if !ok { // ticks longer than a nanosecond: rounded by less than half a tick
		fmt.Fprintf(w, "trace_reader: warning: %s (the viewers keep whole nanoseconds)\n", what)
		return
	}
	fmt.Fprintf(w, "trace_reader: warning: %s (the trace's time base is %s a cycle; the viewers keep whole nanoseconds): events under a nanosecond apart may share a timestamp. "+
		"--ns-per-cycle 1 draws one cycle a nanosecond instead, which changes the time scale: times are then %gx the simulated time\n", what, tb, 1/tb.NsPerTick())
}

// subNanosecondTick returns the shortest time base of s (the file's or a
// unit's) when one cycle of it lasts less than a nanosecond: Perfetto and
// Chrome JSON keep whole nanoseconds, so real time merges its cycles.
func subNanosecondTick(s *schema.Schema) (schema.TimeBase, bool) {
	var best schema.TimeBase
	consider := func(tb schema.TimeBase) {
		if !tb.IsZero() && tb.NsPerTick() < 1 && (best.IsZero() || tb.NsPerTick() < best.NsPerTick()) {
			best = tb
		}
	}
	consider(s.TimeBase)
	for _, u := range s.Units {
		consider(u.TimeBase)
	}
	return best, !best.IsZero()
}
