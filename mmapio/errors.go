package mmapio

import "github.com/chronon-sim/chronon-go/internal/tracefile"

// ErrNotATrace is matched (errors.Is) by the error Open returns for a file
// that is not a .ctrace file at all: too short for a header, or a bad magic.
var ErrNotATrace = tracefile.ErrNotATrace

// ErrChecksum is matched (errors.Is) by every error reporting bytes that
// fail their checksum: the header's, schema's or footer's CRC32C, a
// block's CRC32C, or a block's zstd content checksum. The error still
// names the file, the section ("block 3") and the byte offset
// (*schema.FormatError).
var ErrChecksum = tracefile.ErrChecksum

// ErrClosed is returned when a Reader is used after Close.
var ErrClosed = tracefile.ErrClosed

// FaultError reports that reading the mapped file faulted: the file became
// shorter than when it was opened (or its storage failed) while it was
// read. Its File names the file, Section the section read ("block 3",
// "schema"; "" when not known) and Offset the byte whose page faulted (-1
// when not known).
type FaultError = tracefile.FaultError
