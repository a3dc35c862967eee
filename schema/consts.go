package schema

// Sizes and magic numbers of the format. See docs/format.md.
const (
	// Magic is the little-endian uint32 at offset 0: bytes 43 52 54 43 ("CRTC" on disk).
	Magic uint32 = 0x43545243
	// VersionMajor is the only major version this package reads and writes.
	VersionMajor uint16 = 1
	// VersionMinor is the minor version written (1.1 added the per-event args_size prefix).
	VersionMinor uint16 = 1

	HeaderSize      = 64 // file header
	BlockHeaderSize = 28 // inline header before each block's data
	RecordSize      = 24 // StructuredRecord
	EventPrefixSize = 2  // args_size before each record (v1.1)
	EventHeaderSize = EventPrefixSize + RecordSize
	MaxArgsSize     = 0xFFFF // args_size is a uint16

	// SchemaIdentifier is the FlatBuffers file identifier of the schema
	// section (bytes 4..8 of the section). The footer carries none.
	SchemaIdentifier = "CTRC"
)

// Header flags.
const (
	FlagCompressed uint64 = 1 << 0 // blocks may be zstd frames
	FlagHasIndex   uint64 = 1 << 1 // the footer holds a block index
	FlagHasSchema  uint64 = 1 << 2 // a schema section is present
	// FlagChecksums (chronon-go): the header carries the CRC32C of the
	// schema and its own (the 8 bytes the original reserves), and the
	// footer, when there is one, the CRC32C of itself and of every block.
	// The original reader ignores the flag and the fields.
	FlagChecksums uint64 = 1 << 3
)

// MaxBlockSize bounds the uncompressed size of one block that a reader
// accepts. The writer's largest block is 1 MiB; the limit leaves room for
// other writers while keeping a hostile header from sizing a huge buffer.
const MaxBlockSize = 64 << 20
