// Package schema owns the .ctrace v1.1 wire format: the file header, the
// inline block header, the event layout inside a block, the argument
// types, the FlatBuffers schema and footer (built with the code flatc
// generates in schema/fb, read back through a verifier that checks every
// offset before it is followed), and the placeholder syntax of format
// strings.
//
// It is the one leaf package shared by the writer (package chronon) and
// the readers (package mmapio and those built on it), the way Go's
// internal/trace/tracev2 is shared by the runtime tracer and its parsers:
// neither side defines a byte of the format on its own. The repository's
// docs/format.md draws every section with offsets and widths; it changes
// in the same commit as this package.
//
// Compatibility rule: the original C++ Chronon wrote and reads these files.
// Fields it knows keep their slots; everything chronon-go adds is appended at
// the end of a FlatBuffers table, where the original reader never looks.
package schema
