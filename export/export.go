package export

import (
	"errors"

	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Result says what an export wrote.
type Result struct {
	Files             []string // the files written, in cycle order
	Events            uint64   // events read (in the query's window)
	Instants          uint64
	Spans             uint64 // slices begun
	Counters          uint64 // counter samples
	FlowEvents        uint64 // events carrying a flow id
	UnmatchedEnds     uint64 // span ends with no open span (their begin was not selected)
	UnterminatedSpans uint64 // spans still open at the end, closed at the last timestamp
	ClippedSpans      uint64 // spans begun before the window and open at its start, begun there
	AsyncSpans        uint64 // async spans begun (counted in Spans too)
	// ParentLinks counts the events whose parent id names a span (one
	// arrow each in Perfetto and Chrome JSON, from the parent's begin);
	// ParentsMissing those whose parent id names no span (never begun,
	// outside the selection, or ended long before the child began).
	ParentLinks, ParentsMissing uint64
	// ImpossibleSpans counts the complete spans left out because they end
	// before they begin (begin + duration past the last cycle, as a writer
	// that stored end-start with end before start made them:
	// schema.CompleteSpanEnd); FirstImpossibleSpan names the first ("span
	// exec on core0 at cycle 200, duration -50").
	ImpossibleSpans     uint64
	FirstImpossibleSpan string

	// Kanata only: instructions (flows) written, and how each ended. In a
	// trace with retire events (schema.KindRetire) only those retire an
	// instruction; InFlight counts the instructions still in flight at the
	// end, written without an R (Konata shows them to the end of the log).
	Instructions, Retired, Flushed, InFlight uint64
	// Kanata only: flush events of a flow with no instruction in the
	// export (outside the selection, or never seen), which make no row.
	FlushesIgnored uint64
	// Kanata only: dependencies (schema.RoleDepends) written as W lines,
	// and those left out because their producer was not exported (outside
	// the selection, retired too long before, or the consumer itself).
	Dependencies, DependenciesDropped uint64

	// NsPerCycle is the scale the timestamps use: the requested one, or 1
	// when the requested one was under 1 ns (see WithNsPerCycle). TimeScale
	// is NsPerCycle over the requested value: 1 when times are real, 4 when
	// 0.25 ns per cycle was asked for and the output's times are 4x real.
	// With the trace's time base (TimeBase not zero), NsPerCycle is its
	// length of a tick in ns and times are real (TimeScale 1).
	NsPerCycle float64
	TimeScale  float64
	TimeBase   schema.TimeBase // the file's time base, when it gave the times
	// RoundedTimestamps counts the timestamps that fell between two
	// nanoseconds and were rounded to the nearest (the viewers keep whole
	// ns): only a time base, or an NsPerCycle, that is not a whole number of
	// ns can round, and a trace of 1 GHz clocks in picoseconds rounds none.
	RoundedTimestamps uint64
}

// hasTimeBase reports whether s gives the file, or one of its units, a
// time base.
func hasTimeBase(s *schema.Schema) bool {
	if !s.TimeBase.IsZero() {
		return true
	}
	for _, u := range s.Units {
		if !u.TimeBase.IsZero() {
			return true
		}
	}
	return false
}

// Export writes the events of r that q selects to path (and, when split,
// to path's name with .part2, .part3 ... before its extension).
//
// Spans begun before q's cycle window and still open at its start are
// included, begun at the window's start (clipped), as at a file split:
// finding them reads the span events before the window, which costs a read
// of the trace up to the window when it has span formats.
func Export(r *mmapio.Reader, q mmapio.Query, path string, opts ...Option) (Result, error) {
	o := defaults()
	for _, opt := range opts {
		if opt == nil {
			return Result{}, errors.New("export: nil Option")
		}
		if err := opt(&o); err != nil {
			return Result{}, err
		}
	}
	res := Result{NsPerCycle: o.nsPerCycle, TimeScale: 1}
	if o.nsPerCycle < 1 {
		res.NsPerCycle, res.TimeScale = 1, 1/o.nsPerCycle
	}
	timed := !o.nsSet && hasTimeBase(r.Schema())
	if timed && !r.Schema().TimeBase.IsZero() {
		res.TimeBase = r.Schema().TimeBase
		res.NsPerCycle, res.TimeScale = res.TimeBase.NsPerTick(), 1
	}
	labels, runOf := exportRuns(r, o)
	if o.format == FormatKanata {
		err := exportKanata(r, q, path, o, labels, runOf, &res)
		return res, err
	}
	d := newDriver(r, res.NsPerCycle, timed, o.maxBytes, &res)
	d.ts.setProcesses(labels)
	d.runOf = runOf
	iq := d.iterQuery(q)
	trees, parents := needTrees(d.fmts)
	if trees {
		d.tree = spantree.NewOrderer[mmapio.Event]()
		d.tree.Clone = func(ev mmapio.Event) mmapio.Event { return ev.Clone() }
	}
	var err error
	var flows *flowEnds
	switch {
	case trees && (parents || o.format == FormatChromeJSON):
		// One pre-pass, in the order the orderer hands the events over.
		flows, d.kids, err = prepass(r, iq, d.start, d.fmts, labels, runOf, parents, o.format == FormatChromeJSON)
	case o.format == FormatChromeJSON:
		flows, err = countFlows(r, q, d.fmts, labels, runOf)
	}
	if err != nil {
		return res, err
	}
	switch o.format {
	case FormatChromeJSON:
		if flows != nil && flows.n == 0 {
			flows = nil
		}
		d.sink, err = newChromeSink(path, r.Schema().SimulationName, flows)
	default:
		d.sink, err = newPerfettoSink(path)
	}
	if err != nil {
		return res, err
	}
	s := d.sink
	err = d.run(r, iq, cyclewin.NewReporter(r, q, o.progress))
	if err != nil {
		s.finish()
	}
	res.Files = s.files()
	return res, err
}
