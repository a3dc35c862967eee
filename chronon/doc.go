// Package chronon records what every unit of a cycle-accurate simulator did,
// cheaply enough to leave on, into a .ctrace v1.1 file (its layout is drawn
// in the repository's docs/format.md). Package mmapio reads it back.
//
// The pieces, and who may touch them:
//
//   - Formats are registered once, usually in package-level variables, with
//     a format string and typed arguments: NewFormat2[uint64, bool]("fetch
//     pc=0x{:x} taken={}") returns a *Format2[uint64, bool] whose Emit takes
//     exactly those Go types, so a call site cannot pass the wrong types or
//     count. Format ids start at 1 and are shared by every Tracer.
//   - A Tracer owns one output file. Create opens it; Close drains everything,
//     writes the footer index and fsyncs.
//   - A Unit (core0.fetch, core1.l2, ...) is created from a Tracer and owns a
//     lock-free single-producer ring of chunks that grow with its rate. ONE
//     goroutine emits into a unit at a time (a unit made WithShared takes a
//     lock instead, for several); different units may be driven by different
//     goroutines. Emit encodes the event (its cycle, format, unit and
//     arguments) straight into the current chunk: no allocation, lock,
//     interface boxing or syscall. A full chunk is sealed and published with
//     one atomic store.
//   - A background goroutine hands sealed chunks to compression workers
//     (GOMAXPROCS of them by default, WithCompressionWorkers) and a writer
//     appends each as a block of the file. Blocks hold one unit's events in cycle order,
//     and the footer records which unit each block holds, so readers seek by
//     unit and cycle without decompressing other blocks.
//
// Meaning beyond text is in the schema, for the exporters and statistics:
// spans on a unit's lanes (Span), counters (Counter), flows linking an
// instruction's events (WithFlow, Stages for pipeline stages), async spans
// begun and ended by id with their parent's id (AsyncSpan: tasks that
// overlap and end in any order, and the trees they form), strings stored
// once per file (Tracer.Intern, Symbol arguments) and the length of a cycle
// (WithTimeBase). Registering the same format twice returns it.
//
// Categories are a 64-bit mask per format; each unit has an enable mask, so a
// disabled event costs a load and a branch. The file stores the low 32 bits.
//
// Backpressure: by default nothing is lost: a producer whose ring is full
// waits for the writer. WithPolicy(Drop) never waits and counts every dropped
// event per unit (Stats, and the footer's unit_stats).
//
// Tracing never crashes or deadlocks the simulation: I/O errors are kept
// (Err), later blocks are discarded and counted as lost so producers keep
// running, and Close returns the first error.
//
// Concurrency contract: Emit and Unit.Flush on a unit run on the goroutine
// that owns the unit; a unit made with WithShared takes them from any
// goroutine, at the cost of a lock per event. Tracer.Flush and Tracer.Close seal the units' partly
// filled chunks on their behalf, so they must run when no emit is in flight
// (after the emitting goroutines have finished or reached a barrier that
// happens-before the call); the race detector reports violations. Flush,
// Sync and Close may race one another: they take turns, and once Close has
// begun the others return ErrClosed. Stats, Err, category masks and
// registration are safe from any goroutine.
package chronon
