// Command lib is libchronon, the C and C++ library of Chronon in Go, built
// with go build -buildmode=c-shared (libchronon.so) or -buildmode=c-archive
// (libchronon.a); `make lib` builds both into cgo/build. Programs include
// cgo/include/chronon.h (C) or chronon.hpp (C++), never the header that
// go build generates next to the library.
//
// Who does what:
//
//	api.c      the public functions of chronon.h: argument checks, the
//	           per-thread last error, the table of formats, and the calls
//	           into the Go functions below (chronon__go_*)
//	ring.c     the producer's slow path of docs/ring.md (seal, acquire),
//	           pure C except for the wait under the Block policy
//	args.c     chronon_emit_args (tagged arguments, string layout) and the
//	           explanations of failed inline checks
//	model.c    the trace model's helpers (spans, counters, async spans,
//	           stages), registered as the Go runtime registers them
//	export.go  the Go functions C calls: tracers, units, formats, stats,
//	           the wait; each recovers panics into a status
//	model.go   the Go side of interning and unit time bases
//	tracers.go the handle table and the option conversions
//
// The emit path itself is in chronon.h, inline in the caller: it never
// enters this package.
package main

import "C"

// main is required by -buildmode=c-shared and c-archive; it never runs.
func main() {}
