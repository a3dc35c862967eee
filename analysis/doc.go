// Package analysis computes summaries of a trace in one streaming pass over
// the events mmapio returns in cycle order: what trace_reader stats prints.
//
//   - per unit and per format: event counts, first and last cycle, events
//     per 1000 cycles of the window;
//   - per span (unit and span name): count, min / mean / p50 / p99 / max
//     duration and a log2 duration histogram, exact (durations are kept as a
//     sparse histogram of distinct values, which simulators have few of);
//   - occupancy: cycles during which at least one span is open, over the
//     window, per unit and per lane, computed by a sweep over span starts and
//     ends, so memory is bounded by the spans open at once;
//   - per-stage latency along flows: for each flow id, the cycles from its
//     event on one unit to its next event on another unit (fetch -> decode
//     -> ...), aggregated per pair of units. This keeps the last unit and
//     cycle of every flow seen (24 bytes per flow).
package analysis
