package tracefile

import (
	"errors"
	"strconv"

	"github.com/chronon-sim/chronon-go/schema"
)

// ErrNotATrace is matched (errors.Is) by the error Open returns for a file
// that is not a .ctrace file at all: too short for a header, or a bad magic.
var ErrNotATrace = errors.New("not a .ctrace file")

// ErrChecksum is matched (errors.Is) by every error reporting bytes that
// fail their checksum (header, schema, footer, block CRC32C, or a zstd
// frame's content checksum); the error names the file, section and offset.
var ErrChecksum = schema.ErrChecksum

// ErrClosed is returned when a file is read after Close.
var ErrClosed = errors.New("mmapio: reader is closed")

// traceError is a *schema.FormatError that may also match a sentinel. It
// prints exactly as the FormatError ("FILE: SECTION at byte N: REASON"), and
// errors.As finds the FormatError inside.
type traceError struct {
	fe   *schema.FormatError
	kind error
}

func (e *traceError) Error() string   { return e.fe.Error() }
func (e *traceError) Unwrap() []error { return []error{e.fe, e.kind} }

// Errorf returns a *schema.FormatError naming the file, section and byte
// offset.
func (f *File) Errorf(section string, offset int64, format string, args ...any) error {
	return formatErr(f.path, section, offset, format, args...)
}

// checksumErr builds a FormatError for file path that matches ErrChecksum.
func checksumErr(path, section string, offset int64, format string, args ...any) *schema.FormatError {
	fe := schema.ChecksumErrorf(section, offset, format, args...)
	fe.File = path
	return fe
}

// formatErr builds a FormatError for file path.
func formatErr(path, section string, offset int64, format string, args ...any) *schema.FormatError {
	fe := schema.Errorf(section, offset, format, args...)
	fe.File = path
	return fe
}

// withFile fills in the file name of a FormatError from the schema package.
func withFile(err error, path string) error {
	var fe *schema.FormatError
	if errors.As(err, &fe) && fe.File == "" {
		fe.File = path
	}
	return err
}

func notATrace(err error, path string) error {
	var fe *schema.FormatError
	if errors.As(err, &fe) {
		fe.File = path
		return &traceError{fe: fe, kind: ErrNotATrace}
	}
	return err
}

// BlockSection names block i in errors: "block i".
func BlockSection(i int) string { return "block " + strconv.Itoa(i) }

func itoa(i int) string { return strconv.Itoa(i) }
