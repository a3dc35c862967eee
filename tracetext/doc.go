// Package tracetext prints the events of .ctrace files as the original C++
// trace_reader printed them: one line per event, "[%10d] unit: message"
// (the cycle right-aligned in ten columns), or "[%10d] message" when the
// unit has no name.
//
//	r, err := mmapio.Open("run.ctrace")
//	...
//	defer r.Close()
//	n, err := tracetext.WriteDump(os.Stdout, r, mmapio.Query{}.WithCycles(1000, 2000), 0)
//
// Messages are rebuilt by the original's rules (Event.Message is the same
// text): C's %g for floats, hex of negative ints in 32-bit two's
// complement for {:x}, 0x pointers, true/false, NUL-terminated strings,
// "[unknown format]" for a format id the schema does not know, and a
// placeholder the arguments cannot fill printed as it is written.
//
// Text from the file (unit names, format strings, string arguments)
// prints with its control characters escaped, so that one event is one
// line and nothing reaches a terminal raw: bytes below 0x20 and DEL as
// \n, \r, \t or \xHH, the C1 controls U+0080..U+009F (written as UTF-8)
// as \u0080..\u009f. Other bytes, invalid UTF-8 and backslashes included,
// print as they are, so a file without control characters prints
// byte-identical to the original tool. EscapeText does the same for any
// text a tool prints from a trace.
//
// WriteDump is the fast way to print many events: the lines are rendered
// by the reader's background goroutines as they merge the blocks, within
// the reader's memory budget (mmapio.WithMemoryBudget), and only written
// out by the caller's goroutine. Several files read as one timeline
// (mmapio.Multi) print with their units named "<label>/<unit>"
// (WriteMultiDump).
//
// A file that shrinks while it is printed ends the dump with a
// *mmapio.FaultError naming the file and the byte, instead of SIGBUS.
package tracetext
