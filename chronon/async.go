package chronon

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/schema"
)

// Async spans are intervals named by an id rather than by a lane: tasks,
// transactions, requests, which overlap freely on one unit and end in any
// order. A begin and an end pair by (unit, id); exporters pack a unit's
// async spans into as few rows as are open at once. A span may name its
// parent span (any unit's): readers build the trees (a request and its
// sub-requests), draw one arrow per edge and compute fan-out, depth and
// the critical path of each request.
//
// The id is the caller's (a task id, a message id): ids only need to be
// unique among a unit's open spans; an id reused after its span ended
// starts a new span. A parent id names the span with that id that is open
// when the child begins (on any unit; the one begun last if several), or
// else the one begun last; 0 is no parent. A child that begins in the same
// cycle as its parent, even before it, gets its parent.

// AsyncSpan records async spans of one name (a task kind).
type AsyncSpan struct {
	name  string
	begin *Format2[uint64, uint64]
	end   *Format1[uint64]
}

// NewAsyncSpan registers the formats of an async span named name (its
// display name): a begin with the span's id and parent id, an end with its
// id. Options apply to both (WithCategory, WithSource).
func NewAsyncSpan(name string, opts ...FormatOption) (*AsyncSpan, error) {
	return newAsyncSpan(name, withCaller(1, opts))
}

// MustAsyncSpan is NewAsyncSpan for package-level variables; it panics on
// error.
func MustAsyncSpan(name string, opts ...FormatOption) *AsyncSpan {
	s, err := newAsyncSpan(name, withCaller(1, opts))
	if err != nil {
		panic(err)
	}
	return s
}

func newAsyncSpan(name string, opts []FormatOption) (*AsyncSpan, error) {
	if name == "" {
		return nil, fmt.Errorf("chronon: span name is empty")
	}
	s := &AsyncSpan{name: name}
	var err error
	if s.begin, err = NewFormat2[uint64, uint64](name+" begin id={} parent={}", asyncOpts(name, opts, true)...); err != nil {
		return nil, err
	}
	if s.end, err = newAsyncEnd(name, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// asyncOpts are the options of an async span's begin (with the parent
// argument second) or end format: the name, the caller's options, the kind.
func asyncOpts(name string, opts []FormatOption, begin bool) []FormatOption {
	out := append([]FormatOption{WithName(name)}, opts...)
	if begin {
		return append(out, AsAsyncBegin(0), WithParent(1))
	}
	return append(out, AsAsyncEnd(0))
}

func newAsyncEnd(name string, opts []FormatOption) (*Format1[uint64], error) {
	return NewFormat1[uint64](name+" end id={}", asyncOpts(name, opts, false)...)
}

// Name returns the span's display name.
func (s *AsyncSpan) Name() string { return s.name }

// Begin opens span id on u at cycle, a child of span parent (0: none).
func (s *AsyncSpan) Begin(u *Unit, cycle, id, parent uint64) { s.begin.Emit(u, cycle, id, parent) }

// End closes span id on u at cycle.
func (s *AsyncSpan) End(u *Unit, cycle, id uint64) { s.end.Emit(u, cycle, id) }

// AsyncSpan1 is an AsyncSpan whose begins carry one more typed argument.
type AsyncSpan1[A0 Arg] struct {
	name  string
	begin *Format3[uint64, uint64, A0]
	end   *Format1[uint64]
}

// NewAsyncSpan1 registers an async span named name whose begin carries an
// argument of type A0; argText is its part of the begin's format text, with
// one placeholder ("kind={}"). Exporters show it as an argument of the
// span, SQL as a column of its begin.
func NewAsyncSpan1[A0 Arg](name, argText string, opts ...FormatOption) (*AsyncSpan1[A0], error) {
	opts = withCaller(1, opts)
	s := &AsyncSpan1[A0]{name: name}
	var err error
	if s.begin, err = NewFormat3[uint64, uint64, A0](asyncText(name, argText), asyncOpts(name, opts, true)...); err != nil {
		return nil, err
	}
	if s.end, err = newAsyncEnd(name, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// MustAsyncSpan1 is NewAsyncSpan1 for package-level variables.
func MustAsyncSpan1[A0 Arg](name, argText string, opts ...FormatOption) *AsyncSpan1[A0] {
	return must(NewAsyncSpan1[A0](name, argText, withCaller(1, opts)...))
}

// Name returns the span's display name.
func (s *AsyncSpan1[A0]) Name() string { return s.name }

// Begin opens span id on u at cycle, a child of span parent (0: none).
func (s *AsyncSpan1[A0]) Begin(u *Unit, cycle, id, parent uint64, a0 A0) {
	s.begin.Emit(u, cycle, id, parent, a0)
}

// End closes span id on u at cycle.
func (s *AsyncSpan1[A0]) End(u *Unit, cycle, id uint64) { s.end.Emit(u, cycle, id) }

// AsyncSpan2 is an AsyncSpan whose begins carry two more typed arguments.
type AsyncSpan2[A0, A1 Arg] struct {
	name  string
	begin *Format4[uint64, uint64, A0, A1]
	end   *Format1[uint64]
}

// NewAsyncSpan2 is NewAsyncSpan1 with two arguments ("kind={} what={}").
func NewAsyncSpan2[A0, A1 Arg](name, argText string, opts ...FormatOption) (*AsyncSpan2[A0, A1], error) {
	opts = withCaller(1, opts)
	s := &AsyncSpan2[A0, A1]{name: name}
	var err error
	if s.begin, err = NewFormat4[uint64, uint64, A0, A1](asyncText(name, argText), asyncOpts(name, opts, true)...); err != nil {
		return nil, err
	}
	if s.end, err = newAsyncEnd(name, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// MustAsyncSpan2 is NewAsyncSpan2 for package-level variables.
func MustAsyncSpan2[A0, A1 Arg](name, argText string, opts ...FormatOption) *AsyncSpan2[A0, A1] {
	return must(NewAsyncSpan2[A0, A1](name, argText, withCaller(1, opts)...))
}

// Name returns the span's display name.
func (s *AsyncSpan2[A0, A1]) Name() string { return s.name }

// Begin opens span id on u at cycle, a child of span parent (0: none).
func (s *AsyncSpan2[A0, A1]) Begin(u *Unit, cycle, id, parent uint64, a0 A0, a1 A1) {
	s.begin.Emit(u, cycle, id, parent, a0, a1)
}

// End closes span id on u at cycle.
func (s *AsyncSpan2[A0, A1]) End(u *Unit, cycle, id uint64) { s.end.Emit(u, cycle, id) }

// AsyncSpan3 is an AsyncSpan whose begins carry three more typed arguments.
type AsyncSpan3[A0, A1, A2 Arg] struct {
	name  string
	begin *Format5[uint64, uint64, A0, A1, A2]
	end   *Format1[uint64]
}

// NewAsyncSpan3 is NewAsyncSpan1 with three arguments ("kind={} what={}
// where={}").
func NewAsyncSpan3[A0, A1, A2 Arg](name, argText string, opts ...FormatOption) (*AsyncSpan3[A0, A1, A2], error) {
	opts = withCaller(1, opts)
	s := &AsyncSpan3[A0, A1, A2]{name: name}
	var err error
	if s.begin, err = NewFormat5[uint64, uint64, A0, A1, A2](asyncText(name, argText), asyncOpts(name, opts, true)...); err != nil {
		return nil, err
	}
	if s.end, err = newAsyncEnd(name, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// MustAsyncSpan3 is NewAsyncSpan3 for package-level variables.
func MustAsyncSpan3[A0, A1, A2 Arg](name, argText string, opts ...FormatOption) *AsyncSpan3[A0, A1, A2] {
	return must(NewAsyncSpan3[A0, A1, A2](name, argText, withCaller(1, opts)...))
}

// Name returns the span's display name.
func (s *AsyncSpan3[A0, A1, A2]) Name() string { return s.name }

// Begin opens span id on u at cycle, a child of span parent (0: none).
func (s *AsyncSpan3[A0, A1, A2]) Begin(u *Unit, cycle, id, parent uint64, a0 A0, a1 A1, a2 A2) {
	s.begin.Emit(u, cycle, id, parent, a0, a1, a2)
}

// End closes span id on u at cycle.
func (s *AsyncSpan3[A0, A1, A2]) End(u *Unit, cycle, id uint64) { s.end.Emit(u, cycle, id) }

func asyncText(name, argText string) string {
	if name == "" {
		return "" // register reports the empty name's format
	}
	return name + " begin id={} parent={} " + argText
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// AsAsyncBegin makes the format's events begin async spans: argument i
// (0-based, an integer) is the span's id. Other arguments are the span's
// (WithParent for its parent; plain ones are shown on the span). Give the
// begin and its end formats the same name (WithName). NewAsyncSpan builds
// both for the usual case; this option makes a begin with any arguments.
func AsAsyncBegin(i int) FormatOption { return asKind(schema.KindAsyncBegin, i) }

// AsAsyncEnd makes the format's events end async spans: argument i is the
// id of the span of the event's unit that ends. An end may carry arguments
// of its own (a result, a status), shown on the span.
func AsAsyncEnd(i int) FormatOption { return asKind(schema.KindAsyncEnd, i) }

func asKind(kind schema.EventKind, id int) FormatOption {
	mark := markRole(id, schema.RoleID)
	return func(f *format) error {
		if err := mark(f); err != nil {
			return err
		}
		f.info.Kind = kind
		return nil
	}
}

// WithSpanID marks argument i of an instant format as the id of an open
// async span of the event's unit that the event belongs to (a tag, a
// milestone of a task): exporters draw it on that span's row.
func WithSpanID(i int) FormatOption { return markRole(i, schema.RoleID) }

// WithParent marks argument i as the id of the event's parent span (0:
// none): a tree edge from that span to this event's span (an async or a
// lane span's begin) or to the event (an instant). See AsyncSpan for how
// the id is resolved.
func WithParent(i int) FormatOption { return markRole(i, schema.RoleParent) }
