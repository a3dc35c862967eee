// Package capi holds the tests of the C and C++ API of Chronon in Go; the
// API itself is C and C++ (see README.md in this directory):
//
//	include/chronon.h    the C API: lifecycle, registration, the inline emit path
//	include/chronon.hpp  the C++17 API: Format<Args...> derives argument types
//	lib/                 libchronon (package main, built with -buildmode=c-shared
//	                     and c-archive): the Go side and the C slow path
//	examples/            C and C++ example simulators, the W1 generator, the
//	                     threads and misuse programs, cbench
//	chronon.pc.in        pkg-config template (make install)
//
// The tests build the library and the examples with go build and gcc/g++
// into a temporary directory and run them: oracle acceptance, dumps against
// golden text, W1 event multisets against tracegen, 8 threads without loss
// (and under ThreadSanitizer), misuse statuses, static linking, install.
package capi
