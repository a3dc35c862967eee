package chronon

import (
	"errors"
	"fmt"
	"math"

	"github.com/chronon-sim/chronon-go/schema"
)

// An out-of-order core's instructions, as the Kanata export and stats read
// them: an instruction is a flow id, its stages are complete spans on that
// flow, and it ends with a retire or a flush (a squash). Stages does the
// bookkeeping a simulator's hooks would otherwise repeat: the cycle each
// instruction entered its current stage, and the span when it leaves.

// SeqFlow maps a simulator's instruction sequence number, which may be 0,
// to a flow id, which may not (0 means "no flow"): seq+1. FlowSeq is its
// inverse. Readers show the flow id (the Kanata export's I line, a dump's
// flow argument), one more than the sequence number.
//
// Flow ids are shared by the whole file: every reader (stats' stage
// latencies, the Kanata, Perfetto and Chrome exports) joins the events of
// one flow id into one instruction, whatever unit they are on. A simulator
// with several cores that each number instructions from 0 gives each core
// its own range: SeqFlow(core<<48 | seq), say.
func SeqFlow(seq uint64) uint64 { return seq + 1 }

// FlowSeq returns the sequence number SeqFlow mapped to flow.
func FlowSeq(flow uint64) uint64 { return flow - 1 }

// WithRetire makes the format's events retirements: argument i (0-based)
// is the flow id of an instruction that retired (committed) at the event's
// cycle. The Kanata export ends the instruction there; once a trace has
// retire events, an instruction with none is shown as still in flight at
// the end, not as retired at its last stage (schema.KindRetire).
func WithRetire(i int) FormatOption {
	return func(f *format) error {
		if err := WithFlow(i)(f); err != nil {
			return err
		}
		f.info.Kind = schema.KindRetire
		return nil
	}
}

// Stages records instructions going through a pipeline's stages as
// complete spans on their flows: Enter moves an instruction into a stage
// and closes the one it was in, Retire and Squash end it. The simulator
// keeps an Inst in each of its instructions (no allocation, no map).
// One goroutine drives an instruction at a time, as for its unit.
type Stages struct {
	spans  []*Span
	retire *Format1[uint64]
	squash *Format1[uint64]
}

// Inst is an instruction's place in the pipeline, kept by the simulator in
// its own instruction record. Make it with Stages.Start (a zero Inst is in
// no stage, with flow 0).
type Inst struct {
	flow  uint64
	unit  *Unit // of the open stage
	since uint64
	stage int32 // index of the open stage, -1 none
}

// Flow returns the instruction's flow id.
func (in *Inst) Flow() uint64 { return in.flow }

// Stage returns the index of the stage the instruction is in, or -1.
func (in *Inst) Stage() int { return int(in.stage) }

// NewStages registers a complete span per stage name, in pipeline order
// (a name containing "stall" is drawn over the stages in Konata), and the
// retire and squash formats. Options apply to all of them.
func NewStages(names []string, opts ...FormatOption) (*Stages, error) {
	return newStages(names, withCaller(1, opts))
}

// MustStages is NewStages for package-level variables; it panics on error.
func MustStages(names ...string) *Stages {
	s, err := newStages(names, withCaller(1, nil))
	if err != nil {
		panic(err)
	}
	return s
}

func newStages(names []string, opts []FormatOption) (*Stages, error) {
	if len(names) == 0 || len(names) > math.MaxInt32 {
		return nil, errors.New("chronon: stages need at least one name")
	}
	s := &Stages{spans: make([]*Span, len(names))}
	for i, n := range names {
		for _, m := range names[:i] {
			if m == n {
				return nil, fmt.Errorf("chronon: stage %q named twice", n)
			}
		}
		var err error
		if s.spans[i], err = newSpan(n, opts); err != nil {
			return nil, err
		}
	}
	var err error
	if s.retire, err = NewFormat1[uint64]("retire flow={}", append(opts[:len(opts):len(opts)], WithRetire(0))...); err != nil {
		return nil, err
	}
	if s.squash, err = NewFormat1[uint64]("squash flow={}", append(opts[:len(opts):len(opts)], WithFlush(0))...); err != nil {
		return nil, err
	}
	return s, nil
}

// Span returns the span of stage i (for spans inside a stage, or stats).
func (s *Stages) Span(i int) *Span { return s.spans[i] }

// Start makes an instruction of sequence number seq (0 allowed: its flow
// is SeqFlow(seq)) that is in no stage yet.
func (s *Stages) Start(seq uint64) Inst { return Inst{flow: SeqFlow(seq), stage: -1} }

// Enter moves the instruction into stage i on unit u at cycle: the stage
// it was in ends there (a span from its Enter to cycle, on its unit).
func (s *Stages) Enter(u *Unit, cycle uint64, in *Inst, i int) {
	s.Leave(cycle, in)
	in.unit, in.since, in.stage = u, cycle, int32(i)
	_ = s.spans[i] // an index out of range fails here, not at the Leave
}

// Leave ends the instruction's stage at cycle (a bubble until its next
// Enter). A no-op when it is in none. A cycle before the one it entered the
// stage at records no span (Span.Between: counted, ErrImpossibleSpan).
func (s *Stages) Leave(cycle uint64, in *Inst) {
	if in.stage < 0 || in.unit == nil { // in.unit nil: a zero Inst, not made by Start, is in no stage
		in.stage = -1
		return
	}
	s.spans[in.stage].Between(in.unit, in.since, cycle, 0, in.flow)
	in.stage = -1
}

// Retire ends the instruction's stage and records its retirement on u.
func (s *Stages) Retire(u *Unit, cycle uint64, in *Inst) {
	s.Leave(cycle, in)
	s.retire.Emit(u, cycle, in.flow)
}

// Squash ends the instruction's stage and records it as squashed (flushed
// from the pipeline, a wrong-path instruction) on u.
func (s *Stages) Squash(u *Unit, cycle uint64, in *Inst) {
	s.Leave(cycle, in)
	s.squash.Emit(u, cycle, in.flow)
}

// Between records a complete span from cycle start to cycle end (the end,
// not a duration). An end before the start is a caller's bug (the two
// swapped, or a stage left before it was entered): as Complete does with an
// impossible span, Between records nothing, counts it (UnitStats.Rejected)
// and keeps the first as the tracer's error (ErrImpossibleSpan).
func (s *Span) Between(u *Unit, start, end uint64, lane uint32, flow uint64) {
	if end < start {
		s.rejectBetween(u, start, end)
		return
	}
	s.complete.Emit(u, start, lane, flow, end-start)
}

// OnChange is a counter that records a sample only when the value changes:
// a queue's occupancy sampled every cycle costs an event per change, not
// per cycle. Make one per unit (Counter.OnChange); it is used from the
// goroutine that owns its unit (its last value is not locked, even on a
// shared unit: make one per goroutine there).
type OnChange struct {
	c    *Counter
	u    *Unit
	last int64
	set  bool
}

// OnChange returns a sampler of c on u that skips repeated values.
func (c *Counter) OnChange(u *Unit) *OnChange { return &OnChange{c: c, u: u} }

// Sample records v at cycle when it differs from the last value recorded
// (the first one always is).
func (o *OnChange) Sample(cycle uint64, v int64) {
	if o.set && v == o.last {
		return
	}
	o.last, o.set = v, true
	o.c.Sample(o.u, cycle, v)
}
