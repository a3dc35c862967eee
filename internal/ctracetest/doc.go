// Package ctracetest writes .ctrace files for tests, fuzz seeds and
// benchmarks: a small, synchronous, deterministic writer (Writer, Build)
// with switches for every layout the reader must handle, and the W1
// synthetic workload used by the reader's benchmarks.
//
// It is not the runtime writer (package chronon): it has no buffering
// policy, no concurrency and no error recovery; it writes exactly the bytes
// its options describe, so a test can say which file it reads.
package ctracetest
