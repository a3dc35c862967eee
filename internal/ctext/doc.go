// Package ctext prints events as the original C++ trace_reader printed
// them: messages rebuilt from a format string and argument bytes by the
// original's rules, numbers as C's printf printed them (%g floats, %x of
// negative ints in 32-bit two's complement, 0x pointers), the dump line
// "[%10d] unit: message", and the escaping of control characters in text
// taken from a file.
//
// The reader (Event.Message, Arg.String) and the text package (dump lines)
// share it, so both print the same bytes. Lines renders the dump lines of
// decoded records (tracefile) on the reader's merge workers.
package ctext
