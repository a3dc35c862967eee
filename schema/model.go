package schema

import "strconv"

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
	TimeBase       TimeBase   // appended slot 8; zero: cycles have no time
	Symbols        []string   // appended slot 9: interned strings, by symbol id
}

// Symbol returns the string of symbol id (an argument with RoleSymbol).
// SymbolOverflow, the id a writer records once its symbol table is full,
// and ids the table does not hold are not found.
func (s *Schema) Symbol(id uint32) (string, bool) {
	if int64(id) < int64(len(s.Symbols)) {
		return s.Symbols[id], true
	}
	return "", false
}

// SymbolOverflow is the symbol a writer records for a string it could not
// intern because its symbol table was full; readers print it as
// SymbolOverflowText.
const SymbolOverflow uint32 = 0xFFFFFFFF

// SymbolOverflowText is how readers print SymbolOverflow.
const SymbolOverflowText = "[symbol table full]"

// SymbolText is how readers print symbol id: its string, SymbolOverflowText,
// or "[symbol N]" for an id the table does not hold.
func (s *Schema) SymbolText(id uint32) string {
	if str, ok := s.Symbol(id); ok {
		return str
	}
	if id == SymbolOverflow {
		return SymbolOverflowText
	}
	return "[symbol " + strconv.FormatUint(uint64(id), 10) + "]"
}

// TimeBaseOf returns the time base of unit id's cycles: the unit's own
// (a clock domain), else the file's; zero when neither is recorded.
func (s *Schema) TimeBaseOf(unit uint16) TimeBase {
	for i := range s.Units {
		if u := &s.Units[i]; u.ID == unit && !u.TimeBase.IsZero() {
			return u.TimeBase
		}
	}
	return s.TimeBase
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

// RoleIndex returns the index of the first argument with role r, or -1.
func (f *Format) RoleIndex(r ArgRole) int {
	for i := range f.ArgTypes {
		if f.Role(i) == r {
			return i
		}
	}
	return -1
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
	TimeBase TimeBase // appended slot 3: its clock domain; zero: the file's
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
	// HasCRC: the footer carries checksums (appended slot 6, and slot 8 of
	// every block entry; see CheckFooterCRC). A builder given HasCRC writes
	// both, every entry's from its CRC; CRC is the footer's own, as decoded
	// (a builder computes it).
	HasCRC bool
	CRC    uint32
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
	// CRC is the CRC32C of the block's inline header and data (BlockCRC),
	// appended slot 8; HasCRC says whether the entry records it.
	CRC    uint32
	HasCRC bool
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
