package schema

// Schema is the decoded schema section (FlatBuffers table TraceSchema).
type Schema struct {
	Version        uint32
	Formats        []Format
	Categories     []Category
	Units          []Unit
	SimulationName string
	ConfigHash     uint64
	Metadata       []KeyValue // appended slot 6
	Writer         string     // appended slot 7
}

// Format is one registered format string (FormatEntry).
type Format struct {
	ID       uint32
	Format   string
	File     string
	Line     uint32
	ArgTypes []ArgType
	IsLog    bool
	LogLevel uint8
	// Appended by chronon-go; zero values in files of the original writer.
	Kind     EventKind
	ArgRoles []ArgRole // parallel to ArgTypes; nil = all plain
	Name     string
	Category uint64
	ArgNames []string // nil in old files: use ArgNames(Format)
}

// Role returns the role of argument i (RolePlain when none was recorded).
func (f *Format) Role(i int) ArgRole {
	if i < len(f.ArgRoles) {
		return f.ArgRoles[i]
	}
	return RolePlain
}

// Category is a named category bit (CategoryEntry).
type Category struct {
	Name        string
	Description string
	Mask        uint64
}

// Unit is a simulator unit (UnitEntry): id 1..65535, dotted name, type name.
type Unit struct {
	ID       uint16
	Name     string
	TypeName string
}

// KeyValue is one pair of run metadata.
type KeyValue struct {
	Key, Value string
}

// Footer is the decoded footer (FlatBuffers table FileFooter).
type Footer struct {
	Blocks           []BlockIndex
	TotalEvents      uint64
	MinCycle         uint64
	MaxCycle         uint64
	CreatedTimestamp uint64     // Unix seconds
	UnitStats        []UnitStat // appended slot 5
}

// BlockIndex is the footer's copy of a block's header (FlatBuffers table
// BlockHeader) plus where the block is and, appended, which units it holds.
type BlockIndex struct {
	Index            uint32
	EventCount       uint32
	MinCycle         uint64
	MaxCycle         uint64
	UncompressedSize uint32
	CompressedSize   uint32
	DataOffset       uint64   // offset of the inline header
	Units            []uint16 // appended slot 7; nil when the writer did not record it
}

// Inline returns the inline header that a block with this index entry carries.
func (b *BlockIndex) Inline() BlockHeader {
	return BlockHeader{EventCount: b.EventCount, MinCycle: b.MinCycle, MaxCycle: b.MaxCycle,
		UncompressedSize: b.UncompressedSize, CompressedSize: b.CompressedSize}
}

// UnitStat is what happened to one unit's events (appended UnitStats).
type UnitStat struct {
	UnitID  uint16
	Emitted uint64
	Written uint64
	Dropped uint64
}
