// Package export turns a .ctrace file, or a cycle window or unit set of it,
// into files that trace viewers open: Perfetto's protobuf trace format
// (ui.perfetto.dev, trace_processor) and the Trace Event Format JSON that
// chrome://tracing and many other tools read.
//
// The mapping (the same for both formats):
//
//   - One track per unit, nested by the dotted unit path (core0 ->
//     core0.fetch) under a root track named after the simulation, so that
//     hundreds of units stay navigable. Tracks are declared just before
//     their first event.
//   - Instant formats become instant events named after the format; their
//     arguments become typed debug annotations named after their
//     placeholders (schema.ArgNames).
//   - Span formats (FormatEntry.kind, see chronon.NewSpan) become slices on
//     the unit's track, or on a child track per lane. A complete span (known
//     duration) is a begin now and an end later; spans that would overlap
//     without nesting on one lane go to extra rows, so every track nests.
//   - Counter formats become counter tracks, one per unit and counter.
//   - An argument with the flow role links the event to the other events
//     with the same flow id (one instruction across pipeline stages). In
//     Chrome JSON the first event of a chain says flow_out, the last
//     flow_in, the others both; a pre-pass over the flow argument knows
//     which is last.
//   - A trace merged from several runs (rewrite.Merge, units
//     named "<label>/<unit>") draws each run as a process, its units under
//     it. The runs are WithProcesses' labels or, without it, those the
//     merged trace's metadata names ("<label>/file"), so a merged file read
//     later exports as the multi-file read. A flow is a flow id within a
//     run: the written ids are the flow id in the first run and the id with
//     the run's index in its top 16 bits in the others (distinct for ids
//     below 2^48), so no arrow joins two runs; in Kanata each run's
//     instructions are their own rows, the I line's thread id the run's
//     index.
//   - One cycle is WithNsPerCycle nanoseconds (default 1). Both formats'
//     viewers keep whole nanoseconds, so under 1 ns per cycle the export
//     uses 1 and reports the scale in Result.TimeScale rather than merge
//     cycles.
//
// Configuration is by functional options (WithFormat, WithNsPerCycle,
// WithMaxFileBytes, WithProgress); no options give Perfetto at 1 ns per
// cycle in files of at most DefaultMaxFileBytes.
//
// Output is streamed: events are read in cycle order from mmapio and written
// as they come, so memory does not grow with the events (except in the
// Chrome JSON flow pre-pass: 16 bytes per flow id and a bit per flow event).
// What the Perfetto and Chrome JSON exports hold while reading grows with
// what is open at once: the spans begun and not yet ended and the tracks
// (one per lane). Past a quarter of the reader's memory budget
// (mmapio.WithMemoryBudget) Export fails with an error naming the file, the
// cycle and the budget (spans that never end, or a lane per span); a larger
// budget exports the trace.
// A large export is split by cycle window into files under the size limit
// (browsers fail on bigger ones); each file is self-contained (descriptors
// and interned names re-emitted, spans open across the cut closed and
// reopened, flows begun again). A cycle window is cut the same way: spans
// open at its start begin there, which needs a read of the span events
// before the window (lookback; skipped when the trace has no span format).
package export
