// Package mmapio reads .ctrace files (format v1.1): those our writer
// produces and those of the original C++ writer, complete or cut off.
//
// # Opening
//
// Open maps the file read-only (mmap on Unix, a plain read elsewhere) and
// validates the header, the schema and the footer before it trusts any
// offset or size in them. A bad file gives an error naming the file, the
// section and the byte offset (*schema.FormatError, errors.As finds it); a
// file that is not a trace at all also matches ErrNotATrace. Block data is
// checked when a block is read: the inline header must agree with the
// footer, a zstd frame must decode to exactly the declared size, the events
// must fill the block, be as many as declared and lie in its cycle range.
// No allocation is sized by a field of the file beyond a fixed limit
// (schema.MaxBlockSize, 64 MiB, per block; a larger block is an error
// naming it), and a zstd block is decoded only once its frame agrees with
// the declared size (the frame content size, or when the frame has none,
// what its block headers can hold), so a few bytes declaring 64 MiB cost
// nothing. What an iteration holds decoded at once is bounded by the
// memory budget (below).
//
// An empty block (no events, no uncompressed bytes, as data nothing or zstd
// frames that decode to nothing, skippable frames included) is valid: it
// reads as no events, whatever cycle range its header gives, and is in no
// query's plan. Blocks lists it.
//
// The footer must agree with its blocks as
// the conformance oracle requires: entries in file order (block_index is
// the position), none overlapping another or listed twice, none before the
// header's first block offset, the footer after the last block, and
// total_events, min_cycle and max_cycle those of the entries. WithRepair
// reads a file whose footer fails these checks as one without a footer
// (below) instead of failing.
//
// Only regular files are read: a FIFO, directory or device is refused when
// opened (without blocking: a FIFO is not waited on). A file that shrinks
// while it is mapped makes reads of the lost pages fault; the reader turns
// that into a *FaultError naming the file and byte (from Open, WriteDump,
// an iteration's Err, WriteComplete; Blocks then returns nil and Err says
// why) instead of SIGBUS. Code that reads event arguments itself (they
// alias the mapping for uncompressed blocks) can do the same with
// CatchFault.
//
// A file without a usable footer (the writer was killed, the file was cut
// short, or written without an index) is recovered: the blocks are found by
// walking their inline headers from the first one, which is where the
// header says, or right after the schema (located after the header when the
// header lost its offsets). Every block found is verified by decoding it;
// the walk stops at the first that fails, and the bytes from there on are a
// torn tail, ignored. Status says which case a file is, how many blocks and
// events were recovered and how many bytes were torn off. WriteComplete
// writes such a file back out complete.
//
// # Reading events
//
// Events (a range function) and Iter (Next/Event/Err) return the events a
// Query selects, in cycle order; events with equal cycles come in file
// order: by the offset of their block, then their place in it. A file whose
// blocks are in cycle order already (every file of the original writer)
// reads back in exactly its file order; blocks that overlap in cycles (our
// writer's one-unit-per-block files) are merged. A block whose own events
// are not in cycle order is sorted (stably) when it is read, so the output
// is in cycle order whatever the file.
//
//	r, err := mmapio.Open("run.ctrace")
//	...
//	defer r.Close()
//	q := mmapio.Query{}.WithCycles(9_000_000, 9_001_000).WithUnits(r.UnitsNamed("core1.l2")...)
//	for ev := range r.Events(q) {
//		lat, _ := ev.ArgByName("lat")
//		fmt.Println(ev.Cycle, r.UnitName(ev.UnitID), ev.Message(), lat.Int())
//	}
//	if err := r.Err(); err != nil { ... }
//
// A cycle query finds its blocks by binary search on the footer's index; a
// unit query skips the blocks whose recorded unit set misses it (files of
// the original writer record none: their blocks are all read and filtered).
// Only the blocks a query needs are decompressed.
//
// WriteDump writes the events as the original trace_reader printed them
// (AppendLine prints one): "[%10d] unit: message", C's %g for floats, hex of
// negative ints in 32-bit two's complement, 0x pointers, true/false,
// NUL-terminated strings, "[unknown format]", no unit prefix when the unit
// has no name. Text from the file (unit names, format strings, string
// arguments) prints with its control characters escaped, so one event is
// one line and nothing reaches a terminal raw: bytes below 0x20 and DEL as
// \n, \r, \t or \xHH, UTF-8 C1 controls (U+0080..U+009F) as \u0080..\u009f
// (EscapeText, escape.go). Other bytes, invalid UTF-8 and backslashes
// included, print as they are: a file without control characters prints
// byte-identical to the original tool. Event.Message and Arg.String escape
// the same way; RawArgs and Arg.Bytes are the file's bytes.
//
// # Lifetimes and memory
//
// Slices the Reader returns point into the mapping or into pooled buffers.
// An event's arguments are valid until the next step of the iteration (the
// buffer of a compressed block is reused once the merge is past it; a raw
// block is read in place and stays valid until Close): use them in the loop
// body, or Clone the event. Close must not race with the use of anything the
// Reader returned.
//
// Blocks are decoded, merged and (for WriteDump) rendered on background
// goroutines, one cycle range ("segment") at a time, ahead of the consumer;
// see segments.go. The memory this takes is the read-ahead (WithReadAhead)
// plus the blocks that overlap the current cycle: one per unit for our
// writer's files, one or two for the original's. Compressed blocks go
// through one long-lived zstd decoder shared by all Readers.
//
// Each iteration (Events, Iter, WriteDump) works within a memory budget,
// WithMemoryBudget (default 256 MiB beyond the mapping): decoded blocks,
// their event records, copied arguments, the merge's buffers and a dump's
// text, each counted at its largest before it is allocated. Segments are
// decoded ahead only as far as the budget allows. When the blocks that
// overlap one segment do not fit at all (thousands of units with large
// blocks, or a crafted file whose blocks all overlap), the rest of the
// iteration is merged in windows (window.go): for each window every block
// overlapping it is decoded again and only the window's events are kept,
// so the output is the same and memory stays within the budget, at the
// cost of decoding a block once per window it overlaps (see
// BenchmarkBudgetWindows); once windowed, an iteration stays windowed. A block too large to decode within the budget
// alone ends the iteration with an error naming it. Outside the budget:
// the package's buffer free lists (at most 144 MiB, usually a few MiB),
// the seek index (12 bytes per block) and a plan's bookkeeping.
//
// The footer's block index is not copied: the Reader reads its entries in
// place from the mapping (schema.FooterIndex). What it keeps per block of the
// file is the seek index (12 bytes); a query with a filter adds its plan (4
// bytes per selected block, a full scan uses the index itself), and decode
// state exists only for the blocks of segments in flight. That is 1.9 MB for
// a 2 GB trace, where a copy of the footer would add 10 MB more. Blocks and Footer().Blocks decode the entries on first use, for
// tools that want them as a slice. A recovered file (no footer) keeps the
// entries its walk found.
//
// A Reader is safe for concurrent use by several goroutines, each with its
// own iteration.
package mmapio
