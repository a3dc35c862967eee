package schema

// ArgType is the type tag of one format argument (the spec's 13 types).
type ArgType uint8

const (
	ArgNone    ArgType = 0
	ArgInt8    ArgType = 1
	ArgInt16   ArgType = 2
	ArgInt32   ArgType = 3
	ArgInt64   ArgType = 4
	ArgUInt8   ArgType = 5
	ArgUInt16  ArgType = 6
	ArgUInt32  ArgType = 7
	ArgUInt64  ArgType = 8
	ArgFloat   ArgType = 9
	ArgDouble  ArgType = 10
	ArgPointer ArgType = 11
	ArgString  ArgType = 12 // NUL-terminated bytes
	ArgBool    ArgType = 13
)

var argSizes = [...]uint8{0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 0, 1}

var argNames = [...]string{"none", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double", "pointer", "string", "bool"}

// Size is the encoded size of a fixed-size type, 0 for String and unknown types.
func (t ArgType) Size() int {
	if int(t) < len(argSizes) {
		return int(argSizes[t])
	}
	return 0
}

// Valid reports whether t is one of the 13 defined types.
func (t ArgType) Valid() bool { return t >= ArgInt8 && t <= ArgBool }

func (t ArgType) String() string {
	if int(t) < len(argNames) {
		return argNames[t]
	}
	return "unknown"
}

// EventKind says what an event of a format means beyond its text (appended
// FormatEntry.kind). The values are those of schema/TraceSchema.fbs.
type EventKind uint8

const (
	KindInstant      EventKind = 0
	KindSpanBegin    EventKind = 1
	KindSpanEnd      EventKind = 2
	KindSpanComplete EventKind = 3
	KindCounter      EventKind = 4
	// KindFlush marks the instruction its flow argument names as squashed
	// (flushed from the pipeline) at the event's cycle: the Kanata export
	// ends it with a flush. Readers that predate it treat it as an instant.
	KindFlush EventKind = 5
	// KindAsyncBegin opens a span named by its unit and its RoleID argument:
	// the spans of one unit may overlap and end in any order (tasks,
	// transactions), and exporters pack them into as few rows as are open
	// at once. Readers that predate it treat it as an instant.
	KindAsyncBegin EventKind = 6
	// KindAsyncEnd closes the span of its unit with its RoleID argument
	// (the one begun last, when a unit reuses an id while it is open).
	KindAsyncEnd EventKind = 7
	// KindRetire marks the instruction its flow argument names as retired
	// (committed) at the event's cycle: the Kanata export ends it there. A
	// trace with retire events shows instructions that never retire as in
	// flight, not as retired at their last stage.
	KindRetire EventKind = 8
)

// KindLast is the largest EventKind this package knows; readers treat a
// larger one as an instant.
const KindLast = KindRetire

var kindNames = [...]string{"instant", "span-begin", "span-end", "span-complete", "counter", "flush", "async-begin", "async-end", "retire"}

func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// ArgRole is the role of one argument (appended FormatEntry.arg_roles).
type ArgRole uint8

const (
	RolePlain    ArgRole = 0
	RoleLane     ArgRole = 1
	RoleFlow     ArgRole = 2
	RoleDuration ArgRole = 3
	RoleValue    ArgRole = 4
	// RoleDepends: the flow id of an instruction that the event's
	// instruction (its RoleFlow argument) depends on, a producer whose
	// result it waits for (the Kanata export's W lines). Readers that
	// predate it see an unknown role and treat the argument as plain.
	RoleDepends ArgRole = 5
	// RoleID: the id of an async span (KindAsyncBegin, KindAsyncEnd). On
	// any other event of a unit, the open async span of that unit the event
	// is part of (a tag, a milestone): exporters draw it on that span's row.
	RoleID ArgRole = 6
	// RoleParent: the id of the span this event's span (or the event) was
	// started by, a tree edge: a request and its sub-requests. The id
	// names the async span with that id (on any unit) that is open when the
	// event happens, or else the one begun last; 0 is no parent.
	RoleParent ArgRole = 7
	// RoleSymbol: a UInt32 argument that is an index into the schema's
	// symbol table (Schema.Symbols): readers print the string. The original
	// reader prints the number.
	RoleSymbol ArgRole = 8
)

// RoleLast is the largest ArgRole this package knows; readers treat a
// larger one as plain.
const RoleLast = RoleSymbol

var roleNames = [...]string{"plain", "lane", "flow", "duration", "value", "depends", "id", "parent", "symbol"}

func (r ArgRole) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "unknown"
}
