// Package mmapio reads .ctrace files (format v1.1): those chronon writes
// and those of the original C++ writer, complete or cut off.
//
//	r, err := mmapio.Open("run.ctrace")
//	if err != nil { ... } // names the file, the section and the byte
//	defer r.Close()
//	q := mmapio.Query{}.WithCycles(9_000_000, 9_001_000).WithUnits(r.UnitsNamed("core1.l2")...)
//	for ev := range r.Events(q) {
//		lat, _ := ev.ArgByName("lat")
//		fmt.Println(ev.Cycle, r.UnitName(ev.UnitID), ev.Message(), lat.Int())
//	}
//	if err := r.Err(); err != nil { ... }
//
// Package tracetext prints events as the original trace_reader did;
// package rewrite writes new files from the blocks of existing ones (a
// recovered file completed, several files merged).
//
// # Opening
//
// Open maps the file read-only and checks its header, schema and footer
// before it trusts any offset or size in them. A bad file is an error
// naming the file, the section and the byte offset (*schema.FormatError,
// errors.As finds it); a file that is not a trace at all also matches
// ErrNotATrace. Only regular files are opened: a FIFO, directory or device
// is refused at once, without waiting on it.
//
// A file without a usable footer (the writer was killed, the file was cut
// short, or written without an index) is recovered: its blocks are found
// by walking their headers from the first one, each verified by decoding
// it, and what follows the last good block is a torn tail, ignored.
// Status says which case a file is, how many blocks and events were found
// and how many bytes were torn off. A footer that disagrees with its blocks
// (an entry listed twice, blocks out of order or overlapping, totals that
// are not the blocks') fails Open, unless the file is opened WithRepair:
// it is then recovered the same way.
//
// Block data is checked when a block is read: it must agree with the
// footer, decompress to exactly its declared size, hold as many events as
// declared, each within the block's cycle range and of a unit the footer
// lists for it. A block that fails ends the iteration with an error naming
// it, after the events that come before it in cycle order. No memory is
// sized by a field of the file beyond the format's block limit (64 MiB),
// and a compressed block is decoded only once its data can hold its
// declared size: a few bytes that claim 64 MiB cost nothing.
//
// The byte layouts are drawn in the repository's docs/format.md.
//
// # Reading events
//
// Events (a range function) and Iter (Next, Event, Err) return the events
// a Query selects in cycle order; events of equal cycles come in file
// order (by the position of their block in the file, then their place in
// it). Files of the original writer, whose blocks are in cycle order, read
// back in exactly their file order; our writer's blocks, one unit each,
// are merged. A block whose own events are out of order is sorted
// (stably) when it is read.
//
// A cycle query finds its blocks by binary search on the footer's index; a
// unit query skips the blocks whose recorded units miss it (files of the
// original writer record none: their blocks are read and filtered). Only
// the blocks a query needs are decompressed. A unit query trusts the
// recorded units, as WithUnits explains.
//
// Several files (the ranks of a parallel simulation) read as one timeline
// with OpenAll or NewMulti: events in cycle order across files, ties in
// file order, units named "<label>/<unit>".
//
// # Lifetimes and memory
//
// Slices an event holds point into the mapping or into buffers the reader
// reuses: its arguments (RawArgs, Args, Arg.Raw) are valid until the next
// step of the iteration. Use them in the loop body, or Clone the event.
// Strings the Reader returns (names, format text, metadata) are copies.
// Close must not race with the use of anything the Reader returned.
//
// Blocks are decoded and merged ahead of the consumer by background
// goroutines, a cycle range at a time; breaking out of a loop, Close on an
// Iterator or the end of the events stops them. Each iteration holds at
// most its memory budget (WithMemoryBudget, default 256 MiB beyond the
// mapping) of decoded blocks, their records and the merge's buffers,
// counted at their largest before they are allocated. When the blocks
// that overlap one cycle do not fit in it (thousands of units with large
// blocks, or a crafted file whose blocks all overlap), the iteration goes
// on in windows: the same events in the same order, each block decoded
// again for every window it overlaps, so it gets slower rather than
// bigger. A block too large to decode within the budget alone ends the
// iteration with an error naming it. Outside the budget: the reader's
// free lists of buffers (at most 144 MiB, usually a few MiB) and 12 bytes
// of index per block; the footer's entries are read in place, not copied.
// A program that wants its whole process to stay near the budget sets a
// soft memory limit of ProcessMemoryLimit(budget).
//
// # Guarantees
//
// Nothing in a file makes the reader panic, hang or allocate beyond the
// bounds above. A file that shrinks while it is mapped (truncated by
// another process, a failing disk) turns the reads of the lost pages into
// a *FaultError naming the file and the byte, from Open, an iteration's
// Err or Blocks, instead of a SIGBUS that kills the process. The caller's
// own reads of an event's arguments are not covered: those of an
// uncompressed block alias the mapping, and a read of a lost page there
// faults as any such read does.
//
// A Reader is safe for concurrent use by several goroutines, each with its
// own iteration.
package mmapio
