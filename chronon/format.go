package chronon

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/chronon-sim/chronon-go/schema"
)

// CategoryDefault is the category of formats registered without WithCategory.
const CategoryDefault uint64 = 1

// format is the part of every FormatN shared by all arities: what the
// emit path needs, packed for it, and what the schema records.
type format struct {
	category uint64 // category mask; an event is recorded when unit.mask&category != 0 (gate.go)
	size     uint32 // whole event size when fixed (26 + args)
	argsSize uint16 // args_size of a fixed-size event
	varSize  bool   // some argument is a string
	idCat    uint64 // format_id | low 32 bits of cat << 32: record bytes 8..16
	argcWord uint64 // arg_count << 16: OR-ed with the unit's source id, record bytes 16..24
	id       uint32
	flowArg  int // 1 + index of the argument WithFlow marked, or 0
	depArg   int // 1 + index of the argument WithDepends marked, or 0
	info     schema.Format
	marks    []roleMark // roles options gave single arguments (WithParent, WithSpanID, ...)
}

// roleMark is a role an option gave argument arg (0-based).
type roleMark struct {
	arg  int
	role schema.ArgRole
}

// markRole returns the option giving argument i role r.
func markRole(i int, r schema.ArgRole) FormatOption {
	return func(f *format) error {
		if i < 0 || i >= maxArity {
			return fmt.Errorf("%v argument %d out of range", r, i)
		}
		f.marks = append(f.marks, roleMark{i, r})
		return nil
	}
}

// FormatOption configures a format at registration.
type FormatOption func(*format) error

// WithCategory sets the format's category mask (default CategoryDefault).
// An event is recorded on a unit when the unit's enable mask shares a bit
// with it. The file stores the low 32 bits.
func WithCategory(mask uint64) FormatOption {
	return func(f *format) error {
		if mask == 0 {
			return errors.New("category mask is zero: the format could never be enabled")
		}
		f.category = mask
		return nil
	}
}

// WithSource sets the source location recorded in the schema (default: the
// caller of NewFormatN).
func WithSource(file string, line int) FormatOption {
	return func(f *format) error {
		if line < 0 {
			return fmt.Errorf("negative source line %d", line)
		}
		f.info.File, f.info.Line = file, uint32(line)
		return nil
	}
}

// AsLog marks the format as a log message with a level (0 debug .. 3 error),
// as the original's log channel does.
func AsLog(level uint8) FormatOption {
	return func(f *format) error {
		if level > 3 {
			return fmt.Errorf("log level %d is not 0..3", level)
		}
		f.info.IsLog, f.info.LogLevel = true, level
		return nil
	}
}

// WithName sets the display name exporters use for the format's spans and
// counters (default: the format text before its first placeholder).
func WithName(name string) FormatOption {
	return func(f *format) error { f.info.Name = name; return nil }
}

// WithKind records what the events of the format mean (spans, counters),
// and which argument carries each role. roles is parallel to the arguments;
// nil means all plain. See schema.EventKind and schema.ArgRole.
func WithKind(kind schema.EventKind, roles ...schema.ArgRole) FormatOption {
	return func(f *format) error {
		if kind > schema.KindLast {
			return fmt.Errorf("unknown event kind %d", kind)
		}
		for _, r := range roles {
			if r > schema.RoleLast {
				return fmt.Errorf("unknown argument role %d", r)
			}
		}
		f.info.Kind = kind
		f.info.ArgRoles = append([]schema.ArgRole(nil), roles...)
		return nil
	}
}

// register validates the format string against the argument types and adds
// the format to the registry. skip is the number of frames between the user's
// call and register, for the default source location.
func (f *format) register(text string, types []schema.ArgType, opts []FormatOption, skip int) error {
	f.category = CategoryDefault
	if _, file, line, ok := runtime.Caller(skip); ok {
		f.info.File, f.info.Line = file, uint32(line)
	}
	for _, o := range opts {
		if err := o(f); err != nil {
			return fmt.Errorf("chronon: format %q: %w", text, err)
		}
	}
	if n := len(schema.Placeholders(text)); n != len(types) {
		return fmt.Errorf("chronon: format %q has %d placeholders but %d arguments", text, n, len(types))
	}
	marks := f.marks
	if f.flowArg != 0 {
		marks = append(marks, roleMark{f.flowArg - 1, schema.RoleFlow})
	}
	if f.depArg != 0 {
		marks = append(marks, roleMark{f.depArg - 1, schema.RoleDepends})
	}
	for i, t := range types {
		if t == argSymbol { // a Symbol: stored as its uint32 id
			types[i] = schema.ArgUInt32
			marks = append(marks, roleMark{i, schema.RoleSymbol})
		}
	}
	for _, m := range marks {
		if m.arg >= len(types) {
			return fmt.Errorf("chronon: format %q: %v argument %d but %d arguments", text, m.role, m.arg, len(types))
		}
		if len(f.info.ArgRoles) == 0 {
			f.info.ArgRoles = make([]schema.ArgRole, len(types))
		}
		if len(f.info.ArgRoles) != len(types) {
			break // reported below
		}
		if r := f.info.ArgRoles[m.arg]; r != schema.RolePlain && r != m.role {
			return fmt.Errorf("chronon: format %q: argument %d already has role %v, cannot also be %v", text, m.arg, r, m.role)
		}
		f.info.ArgRoles[m.arg] = m.role
	}
	if len(f.info.ArgRoles) != 0 && len(f.info.ArgRoles) != len(types) {
		return fmt.Errorf("chronon: format %q: %d argument roles for %d arguments", text, len(f.info.ArgRoles), len(types))
	}
	if err := checkKind(f.info.Kind, f.info.ArgRoles); err != nil {
		return fmt.Errorf("chronon: format %q: %w", text, err)
	}
	for i, r := range f.info.ArgRoles {
		if err := checkRoleType(r, types[i]); err != nil {
			return fmt.Errorf("chronon: format %q: argument %d: %w", text, i, err)
		}
	}
	args := 0
	for _, t := range types {
		if t == schema.ArgString {
			f.varSize = true
		}
		args += t.Size()
	}
	f.info.Format = text
	f.info.ArgTypes = types
	f.info.Category = f.category
	f.info.ArgNames = schema.ArgNames(text)
	if f.info.Name == "" && f.info.Kind != schema.KindInstant {
		f.info.Name = defaultName(text)
	}
	f.argsSize = uint16(args)
	f.size = uint32(schema.EventHeaderSize + args)
	f.argcWord = uint64(len(types)) << 16
	return registerFormat(f) // sets id, info.ID and idCat before publishing f
}

// checkKind verifies that a span or counter format has the arguments its
// exporters need.
func checkKind(kind schema.EventKind, roles []schema.ArgRole) error {
	count := func(r schema.ArgRole) int {
		n := 0
		for _, x := range roles {
			if x == r {
				n++
			}
		}
		return n
	}
	for _, r := range []schema.ArgRole{schema.RoleLane, schema.RoleFlow, schema.RoleDuration, schema.RoleValue, schema.RoleDepends, schema.RoleID, schema.RoleParent} {
		if count(r) > 1 {
			return fmt.Errorf("more than one argument with role %v", r)
		}
	}
	async := kind == schema.KindAsyncBegin || kind == schema.KindAsyncEnd
	switch {
	case async && count(schema.RoleID) != 1:
		return errors.New("an async span begin or end needs one argument with role id (the span's id)")
	case async && count(schema.RoleLane) != 0:
		return errors.New("async spans have no lane: the exporters give them rows")
	case count(schema.RoleID) != 0 && !async && kind != schema.KindInstant:
		return errors.New("only async spans and instants have an id argument")
	case count(schema.RoleParent) != 0 && kind != schema.KindAsyncBegin && kind != schema.KindInstant && kind != schema.KindSpanBegin && kind != schema.KindSpanComplete:
		return fmt.Errorf("a %v has no parent: parents are on span begins and instants", kind)
	case kind == schema.KindRetire && count(schema.RoleFlow) != 1:
		return errors.New("a retire needs one argument with role flow (the instruction retired)")
	case kind == schema.KindSpanComplete && count(schema.RoleDuration) != 1:
		return errors.New("a complete span needs one argument with role duration")
	case kind == schema.KindCounter && count(schema.RoleValue) != 1:
		return errors.New("a counter needs one argument with role value")
	case kind != schema.KindSpanComplete && count(schema.RoleDuration) != 0:
		return errors.New("only complete spans have a duration argument")
	case kind != schema.KindCounter && count(schema.RoleValue) != 0:
		return errors.New("only counters have a value argument")
	case kind == schema.KindFlush && count(schema.RoleFlow) != 1:
		return errors.New("a flush needs one argument with role flow (the instruction squashed)")
	case count(schema.RoleDepends) != 0 && count(schema.RoleFlow) != 1:
		return errors.New("a dependency needs one argument with role flow (the instruction that depends)")
	}
	return nil
}

// checkRoleType: lanes, flows and durations are integers; counter values
// may also be floating point.
func checkRoleType(r schema.ArgRole, t schema.ArgType) error {
	integer := t >= schema.ArgInt8 && t <= schema.ArgUInt64
	switch {
	case r == schema.RolePlain:
	case r == schema.RoleSymbol && t != schema.ArgUInt32:
		return fmt.Errorf("role symbol needs type uint32 (chronon.Symbol), not %v", t)
	case r == schema.RoleValue && (integer || t == schema.ArgFloat || t == schema.ArgDouble):
	case r != schema.RoleValue && integer:
	default:
		return fmt.Errorf("role %v cannot have type %v", r, t)
	}
	return nil
}

// defaultName is the format text before its first placeholder, trimmed.
func defaultName(text string) string {
	end := len(text)
	if ph := schema.Placeholders(text); len(ph) > 0 {
		end = ph[0].Start
	}
	name := text[:end]
	for len(name) > 0 && (name[len(name)-1] == ' ' || name[len(name)-1] == '=' || name[len(name)-1] == ':') {
		name = name[:len(name)-1]
	}
	if name == "" {
		return text
	}
	return name
}

// ID returns the format id written into events (ids start at 1).
func (f *format) ID() uint32 { return f.id }

// Category returns the format's category mask.
func (f *format) Category() uint64 { return f.category }

// Text returns the format string.
func (f *format) Text() string { return f.info.Format }

// maxInlineArity is the largest arity whose Emit the compiler inlines (its
// cost grows by one per argument against the inliner's budget of 80): up to
// it, a disabled event or one before the record-time window costs a load of
// the gate at its offset, a compare and a branch at the call site
// (gate.go); FormatN with more arguments adds a function call.
const maxInlineArity = 6
