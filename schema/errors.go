package schema

import (
	"errors"
	"fmt"
)

// FormatError reports bytes that do not follow the format. It names the file
// (filled in by the reader, which knows it), the section and the absolute
// byte offset where the problem was found.
type FormatError struct {
	File    string // file name; empty when the bytes did not come from a file
	Section string // "header", "schema", "footer", "block 12", ...
	Offset  int64  // absolute byte offset in the file
	Reason  string
	// Kind is a sentinel the error also matches (errors.Is), such as
	// ErrChecksum; nil for most errors.
	Kind error
}

// ErrChecksum is matched (errors.Is) by every error that reports bytes
// failing their checksum: the header's, the schema's or the footer's
// CRC32C, a block's CRC32C or its zstd frame's content checksum. Such an
// error still names the file, the section and the byte offset.
var ErrChecksum = errors.New("checksum mismatch")

// Unwrap returns Kind, so that errors.Is(err, ErrChecksum) holds for a
// checksum mismatch.
func (e *FormatError) Unwrap() error { return e.Kind }

func (e *FormatError) Error() string {
	file := e.File
	if file == "" {
		file = "<buffer>"
	}
	return fmt.Sprintf("%s: %s at byte %d: %s", file, e.Section, e.Offset, e.Reason)
}

// Errorf builds a *FormatError; the reader sets File.
func Errorf(section string, offset int64, format string, args ...any) *FormatError {
	return &FormatError{Section: section, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

// ChecksumErrorf builds a *FormatError that matches ErrChecksum; its reason
// starts "checksum mismatch: ".
func ChecksumErrorf(section string, offset int64, format string, args ...any) *FormatError {
	fe := Errorf(section, offset, "checksum mismatch: "+format, args...)
	fe.Kind = ErrChecksum
	return fe
}
