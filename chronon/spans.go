package chronon

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/chronon-sim/chronon-go/schema"
)

// Spans, flows and counters are ordinary v1.1 events whose meaning is
// recorded in the schema (FormatEntry.kind and arg_roles), so the original
// reader prints them as text while exporters turn them into slices, flow
// arrows and counter tracks.
//
// A lane is a slot within a unit (a ROB entry, an MSHR, a port): spans nest
// per (unit, lane). A flow id links one instruction's events across units
// (fetch -> decode -> ... -> retire); 0 means "no flow".

// Span records intervals on a unit: Begin/End pairs, or Complete with a
// known duration in cycles.
type Span struct {
	name     string
	begin    *Format2[uint32, uint64]
	end      *Format2[uint32, uint64]
	complete *Format3[uint32, uint64, uint64]
}

// withCaller puts the source location of the caller skip frames above
// withCaller's caller in front of opts (where a later WithSource overrides
// it): the formats of a span or counter are registered from this file, so
// the default location register takes would name this file, not the line
// that registered the span or counter.
func withCaller(skip int, opts []FormatOption) []FormatOption {
	out := make([]FormatOption, 0, len(opts)+1)
	if _, file, line, ok := runtime.Caller(skip + 1); ok {
		out = append(out, WithSource(file, line))
	}
	return append(out, opts...)
}

// NewSpan registers the three formats of a span named name (its display
// name in exporters). Options apply to all three (WithCategory, WithSource).
// The schema records the caller's source location unless WithSource says
// otherwise.
func NewSpan(name string, opts ...FormatOption) (*Span, error) {
	return newSpan(name, withCaller(1, opts))
}

func newSpan(name string, opts []FormatOption) (*Span, error) {
	if name == "" {
		return nil, fmt.Errorf("chronon: span name is empty")
	}
	s := &Span{name: name}
	with := func(kind schema.EventKind, roles ...schema.ArgRole) []FormatOption {
		return append(append([]FormatOption{WithName(name)}, opts...), WithKind(kind, roles...))
	}
	var err error
	if s.begin, err = NewFormat2[uint32, uint64](name+" begin lane={} flow={}", with(schema.KindSpanBegin, schema.RoleLane, schema.RoleFlow)...); err != nil {
		return nil, err
	}
	if s.end, err = NewFormat2[uint32, uint64](name+" end lane={} flow={}", with(schema.KindSpanEnd, schema.RoleLane, schema.RoleFlow)...); err != nil {
		return nil, err
	}
	if s.complete, err = NewFormat3[uint32, uint64, uint64](name+" lane={} flow={} dur={}", with(schema.KindSpanComplete, schema.RoleLane, schema.RoleFlow, schema.RoleDuration)...); err != nil {
		return nil, err
	}
	return s, nil
}

// MustSpan is NewSpan for package-level variables; it panics on error.
func MustSpan(name string, opts ...FormatOption) *Span {
	s, err := newSpan(name, withCaller(1, opts))
	if err != nil {
		panic(err)
	}
	return s
}

// Name returns the span's display name.
func (s *Span) Name() string { return s.name }

// Begin opens a span on (u, lane) at cycle. flow links it to an instruction
// (0: none).
func (s *Span) Begin(u *Unit, cycle uint64, lane uint32, flow uint64) {
	s.begin.Emit(u, cycle, lane, flow)
}

// End closes the innermost open span on (u, lane) at cycle.
func (s *Span) End(u *Unit, cycle uint64, lane uint32, flow uint64) {
	s.end.Emit(u, cycle, lane, flow)
}

// Complete records a span of dur cycles starting at start. A span whose
// end (start+dur) is past the last cycle, 2^64-1, is what end-start gives
// when end is before start: Complete does not record it (readers would see
// a span of about 1.8e19 cycles), counts it (UnitStats.Rejected) and keeps
// the first as the tracer's error (ErrImpossibleSpan, from Err and Close).
// Span.Between takes the end instead of a duration.
func (s *Span) Complete(u *Unit, start, dur uint64, lane uint32, flow uint64) {
	if start+dur < start {
		s.reject(u, start, dur)
		return
	}
	s.complete.Emit(u, start, lane, flow, dur)
}

// ErrImpossibleSpan is the tracer's error (Err, Close) after Span.Complete
// was given a span ending past the last cycle (start+dur overflows, as a
// duration end-start with end before start does), or Span.Between (and so
// Stages.Leave) an end before the start; it wraps the first such span's
// name, unit and cycles. The spans are not recorded; the unit counts them
// (UnitStats.Rejected); the rest of the trace is written.
var ErrImpossibleSpan = errors.New("chronon: complete span ends before it begins")

// reject counts a span Complete refused and keeps the first as the
// tracer's error; out of line, so that Complete stays small enough to
// inline. Only the first of a unit formats an error (an allocation on a
// path that is a bug of the caller anyway).
func (s *Span) reject(u *Unit, start, dur uint64) {
	if u.rejectedSpans.Add(1) == 1 {
		u.t.setErr(fmt.Errorf("%w: span %q on unit %q at cycle %d with duration %d (its end would be %d cycles before its start; pass Between the end, or end-start only when end >= start)",
			ErrImpossibleSpan, s.name, u.name, start, dur, -dur))
	}
}

// rejectBetween is reject for Between's (start, end) form.
func (s *Span) rejectBetween(u *Unit, start, end uint64) {
	if u.rejectedSpans.Add(1) == 1 {
		u.t.setErr(fmt.Errorf("%w: span %q on unit %q from cycle %d to cycle %d, %d cycles before its start (Between takes the start, then the end)",
			ErrImpossibleSpan, s.name, u.name, start, end, start-end))
	}
}

// Counter records samples of a value over time (queue occupancy, IPC, ...).
type Counter struct {
	f *Format1[int64]
}

// NewCounter registers a counter named name; samples print as "name=value".
// The schema records the caller's source location unless WithSource says
// otherwise.
func NewCounter(name string, opts ...FormatOption) (*Counter, error) {
	f, err := counterFormat[int64](name, withCaller(1, opts))
	if err != nil {
		return nil, err
	}
	return &Counter{f: f}, nil
}

// MustCounter is NewCounter for package-level variables; it panics on error.
func MustCounter(name string, opts ...FormatOption) *Counter {
	f, err := counterFormat[int64](name, withCaller(1, opts))
	if err != nil {
		panic(err)
	}
	return &Counter{f: f}
}

// counterFormat registers the format of a counter of T samples; opts carry
// the user's source location (withCaller).
func counterFormat[T int64 | float64](name string, opts []FormatOption) (*Format1[T], error) {
	if name == "" {
		return nil, fmt.Errorf("chronon: counter name is empty")
	}
	return NewFormat1[T](name+"={}", append(append([]FormatOption{WithName(name)}, opts...), WithKind(schema.KindCounter, schema.RoleValue))...)
}

// Sample records the counter's value at cycle on unit u.
func (c *Counter) Sample(u *Unit, cycle uint64, v int64) { c.f.Emit(u, cycle, v) }

// FloatCounter is a Counter of float64 samples.
type FloatCounter struct {
	f *Format1[float64]
}

// NewFloatCounter registers a counter of float64 samples.
func NewFloatCounter(name string, opts ...FormatOption) (*FloatCounter, error) {
	f, err := counterFormat[float64](name, withCaller(1, opts))
	if err != nil {
		return nil, err
	}
	return &FloatCounter{f: f}, nil
}

// MustFloatCounter is NewFloatCounter for package-level variables; it
// panics on error.
func MustFloatCounter(name string, opts ...FormatOption) *FloatCounter {
	f, err := counterFormat[float64](name, withCaller(1, opts))
	if err != nil {
		panic(err)
	}
	return &FloatCounter{f: f}
}

// Sample records the counter's value at cycle on unit u.
func (c *FloatCounter) Sample(u *Unit, cycle uint64, v float64) { c.f.Emit(u, cycle, v) }

// WithFlush makes the format's events flushes: argument i (0-based) is the
// flow id of an instruction squashed at the event's cycle (a wrong-path
// instruction thrown away). Exporters that show instructions (the Kanata
// export) end the flow there as flushed rather than retired; the others
// show the event as an instant on the flow (schema.KindFlush).
func WithFlush(i int) FormatOption {
	return func(f *format) error {
		if err := WithFlow(i)(f); err != nil {
			return err
		}
		f.info.Kind = schema.KindFlush
		return nil
	}
}

// WithDepends marks argument i (0-based) as the flow id of an instruction
// that the event's instruction depends on (its producer: say the one
// writing a register it reads); the format also needs a flow argument
// (WithFlow), the instruction that depends. One event records one
// dependency. The Kanata export draws it as a W line (an arrow in Konata);
// the other exporters and dump show the argument as a plain value
// (schema.RoleDepends).
func WithDepends(i int) FormatOption {
	return func(f *format) error {
		if i < 0 || i >= maxArity {
			return fmt.Errorf("depends argument %d out of range", i)
		}
		f.depArg = i + 1
		return nil
	}
}

// WithFlow marks argument i (0-based) of an instant format as the flow id
// linking the event to an instruction's other events across units.
func WithFlow(i int) FormatOption {
	return func(f *format) error {
		if i < 0 || i >= maxArity {
			return fmt.Errorf("flow argument %d out of range", i)
		}
		f.flowArg = i + 1
		return nil
	}
}
