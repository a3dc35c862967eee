package schema

import "fmt"

// FormatError reports bytes that do not follow the format. It names the file
// (filled in by the reader, which knows it), the section and the absolute
// byte offset where the problem was found.
type FormatError struct {
	File    string // file name; empty when the bytes did not come from a file
	Section string // "header", "schema", "footer", "block 12", ...
	Offset  int64  // absolute byte offset in the file
	Reason  string
}

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
