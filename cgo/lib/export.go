package main

// The Go functions that api.c and ring.c call. Each one:
//   - returns a chronon_status and writes its error text into the caller's
//     buffer (eb, en: the calling thread's last-error buffer, see api.c);
//   - recovers any panic into CHRONON_ERR_INTERNAL (guard), so that no Go
//     panic ever unwinds into C;
//   - trusts api.c for NULL checks of required pointers but never
//     dereferences one it did not check itself.
// Their names start with chronon__go_: they are exported from the shared
// library (cgo cannot hide them) but are not part of the API.

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2 -Wall -Wextra -Wno-unused-parameter
#include <stdint.h>
#include <stdlib.h>
#include "chronon.h"

void chronon__go_ready_set(void); // api.c
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/cabi"
	"github.com/chronon-sim/chronon-go/schema"
)

// setErr copies msg, NUL-terminated and cut to fit, into the C buffer.
func setErr(eb *C.char, en C.size_t, msg string) {
	if eb == nil || en == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(eb)), int(en))
	n := copy(b[:len(b)-1], msg)
	b[n] = 0
}

// fail reports err for function fn and returns its status.
func fail(eb *C.char, en C.size_t, fn string, err error) C.int {
	setErr(eb, en, fn+": "+strings.TrimPrefix(err.Error(), "chronon: "))
	return statusOf(err)
}

// guard is deferred by every export: a panic becomes a status and a message.
func guard(st *C.int, eb *C.char, en C.size_t, fn string) {
	if r := recover(); r != nil {
		*st = C.CHRONON_ERR_INTERNAL
		setErr(eb, en, fmt.Sprintf("%s: internal error (Go panic recovered): %v", fn, r))
	}
}

// init runs when the Go runtime starts (for libchronon.a: from the
// archive's constructor, in a thread of its own): from now on C may call Go.
func init() { C.chronon__go_ready_set() }

var errUnknownTracer = &statusError{st: C.CHRONON_ERR_HANDLE, msg: "unknown tracer (never opened, or destroyed)"}

//export chronon__go_open
func chronon__go_open(out *C.uint64_t, path *C.char, o *C.chronon_options, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_open")
	opts, err := tracerOptions(o)
	if err != nil {
		return fail(eb, en, "chronon_open", err)
	}
	t, err := chronon.Create(C.GoString(path), opts...)
	if err != nil {
		return fail(eb, en, "chronon_open", err)
	}
	*out = C.uint64_t(addTracer(t))
	return C.CHRONON_OK
}

//export chronon__go_close
func chronon__go_close(id C.uint64_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_close")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_close", errUnknownTracer)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		setErr(eb, en, "chronon_close: the tracer is already closed")
		return C.CHRONON_CLOSED
	}
	return e.close(eb, en, "chronon_close")
}

// close closes the tracer (e.mu held). Any error of Close is the tracer's
// I/O (or internal) error: the file is incomplete.
func (e *tracerEntry) close(eb *C.char, en C.size_t, fn string) C.int {
	e.closeErr = e.t.Close()
	e.closed = true
	if e.closeErr != nil {
		fail(eb, en, fn, e.closeErr)
		return C.CHRONON_ERR_IO
	}
	return C.CHRONON_OK
}

//export chronon__go_destroy
func chronon__go_destroy(id C.uint64_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_destroy")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_destroy", errUnknownTracer)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st = C.CHRONON_OK
	if !e.closed {
		st = e.close(eb, en, "chronon_destroy")
	}
	dropTracer(id)
	if err := cabi.Free(e.t); err != nil && st == C.CHRONON_OK {
		setErr(eb, en, "chronon_destroy: unmapping the rings: "+err.Error())
		st = C.CHRONON_ERR_INTERNAL
	}
	return st
}

//export chronon__go_flush
func chronon__go_flush(id C.uint64_t, sync C.int, eb *C.char, en C.size_t) (st C.int) {
	fn := "chronon_flush"
	if sync != 0 {
		fn = "chronon_sync"
	}
	defer guard(&st, eb, en, fn)
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, fn, errUnknownTracer)
	}
	var err error
	if sync != 0 {
		err = e.t.Sync()
	} else {
		err = e.t.Flush()
	}
	if err == nil {
		return C.CHRONON_OK
	}
	if st := fail(eb, en, fn, err); st == C.CHRONON_CLOSED {
		return st
	}
	return C.CHRONON_ERR_IO // the tracer's sticky I/O error
}

//export chronon__go_tracer_error
func chronon__go_tracer_error(id C.uint64_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_tracer_error")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_tracer_error", errUnknownTracer)
	}
	if err := e.t.Err(); err != nil {
		fail(eb, en, "chronon_tracer_error", err)
		return C.CHRONON_ERR_IO
	}
	return C.CHRONON_OK
}

//export chronon__go_unit_create
func chronon__go_unit_create(id C.uint64_t, name, typeName *C.char, o *C.chronon_unit_options, out **C.chronon_unit, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_unit_create")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_unit_create", errUnknownTracer)
	}
	opts, err := unitOptions(typeName, o)
	if err != nil {
		return fail(eb, en, "chronon_unit_create", err)
	}
	unit, ring, err := cabi.NewForeignUnit(e.t, C.GoString(name), opts)
	if err != nil {
		return fail(eb, en, "chronon_unit_create", err)
	}
	u := unit.(*chronon.Unit)
	e.unitsMu.Lock()
	e.units[ring] = u
	e.unitsMu.Unlock()
	// ring is mapped memory outside the Go heap (cabi.NewForeignUnit):
	// C may keep it.
	*out = (*C.chronon_unit)(ring)
	return C.CHRONON_OK
}

// formats keeps the C-registered formats reachable (the registry does
// too; this makes the ownership explicit).
var formats = struct {
	sync.Mutex
	m map[uint32]*chronon.DynamicFormat
}{m: map[uint32]*chronon.DynamicFormat{}}

//export chronon__go_format_register
func chronon__go_format_register(text *C.char, types *C.uint8_t, n C.size_t, o *C.chronon_format_options, id *C.uint32_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_format_register")
	if n > 255 {
		return fail(eb, en, "chronon_format_register", argErr("%d arguments (at most 255)", uint64(n)))
	}
	var ts []schema.ArgType
	if n > 0 {
		for _, t := range unsafe.Slice((*uint8)(unsafe.Pointer(types)), int(n)) {
			ts = append(ts, schema.ArgType(t))
		}
	}
	opts, err := formatOptions(o, int(n))
	if err != nil {
		return fail(eb, en, "chronon_format_register", err)
	}
	f, err := chronon.NewDynamicFormat(C.GoString(text), ts, opts...)
	if err != nil {
		return fail(eb, en, "chronon_format_register", argErr("%s", strings.TrimPrefix(err.Error(), "chronon: ")))
	}
	formats.Lock()
	formats.m[f.ID()] = f
	formats.Unlock()
	*id = C.uint32_t(f.ID())
	return C.CHRONON_OK
}

// chronon__go_category_name names a category bit that registry.c chose.
//
//export chronon__go_category_name
func chronon__go_category_name(mask C.uint64_t, name, desc *C.char, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_category_register")
	if err := chronon.NameCategory(uint64(mask), C.GoString(name), goString(desc)); err != nil {
		return fail(eb, en, "chronon_category_register", argErr("%s", strings.TrimPrefix(err.Error(), "chronon: ")))
	}
	return C.CHRONON_OK
}

func fillUnitStats(out *C.chronon_unit_stats, s chronon.UnitStats) {
	*out = C.chronon_unit_stats{
		emitted: C.uint64_t(s.Emitted),
		written: C.uint64_t(s.Written),
		dropped: C.uint64_t(s.Dropped),
		lost:    C.uint64_t(s.Lost),
		waits:   C.uint64_t(s.Waits),
		id:      C.uint16_t(s.ID),
	}
}

//export chronon__go_stats
func chronon__go_stats(id C.uint64_t, out *C.chronon_stats, units *C.chronon_unit_stats, capacity C.size_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_get_stats")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_get_stats", errUnknownTracer)
	}
	s := e.t.Stats()
	*out = C.chronon_stats{
		blocks:             C.uint64_t(s.Blocks),
		raw_bytes:          C.uint64_t(s.RawBytes),
		compressed_bytes:   C.uint64_t(s.CompressedBytes),
		file_bytes:         C.int64_t(s.FileBytes),
		n_units:            C.size_t(len(s.Units)),
		symbols:            C.uint64_t(s.Symbols),
		symbols_overflowed: C.uint64_t(s.SymbolsOverflowed),
	}
	if units != nil && capacity > 0 {
		dst := unsafe.Slice(units, int(min(uint64(capacity), uint64(len(s.Units)))))
		for i := range dst {
			fillUnitStats(&dst[i], s.Units[i])
		}
	}
	return C.CHRONON_OK
}

//export chronon__go_unit_stats
func chronon__go_unit_stats(id C.uint64_t, u *C.chronon_unit, out *C.chronon_unit_stats, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_get_unit_stats")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_get_unit_stats", errUnknownTracer)
	}
	e.unitsMu.Lock()
	unit := e.units[unsafe.Pointer(u)]
	e.unitsMu.Unlock()
	if unit == nil {
		return fail(eb, en, "chronon_get_unit_stats", &statusError{st: C.CHRONON_ERR_HANDLE, msg: "not a unit of this tracer"})
	}
	for _, s := range e.t.Stats().Units {
		if s.ID == unit.ID() {
			fillUnitStats(out, s)
			return C.CHRONON_OK
		}
	}
	return fail(eb, en, "chronon_get_unit_stats", &statusError{st: C.CHRONON_ERR_INTERNAL, msg: "unit missing from the tracer's stats"})
}

// chronon__go_wait_room is the only call the emit path makes into Go: the
// ring is full under the Block policy (docs/ring.md, reserve step 3). It
// returns 0 once a chunk is free, 1 when the tracer closed (the producer
// then counts a drop).
//
//export chronon__go_wait_room
func chronon__go_wait_room(ring unsafe.Pointer) (st C.int) {
	defer func() {
		if recover() != nil {
			st = 1
		}
	}()
	if cabi.WaitForRoom(ring) != nil {
		return 1
	}
	return 0
}

// chronon__go_selftest_panic panics inside the guard, so tests can check
// that a Go panic reaches C as CHRONON_ERR_INTERNAL and a message.
//
//export chronon__go_selftest_panic
func chronon__go_selftest_panic(eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon__selftest_panic")
	var m map[string]int
	//lint:ignore SA5000 the panic is the point: this is the guard's self-test
	m["boom"] = 1 // assignment to a nil map: a runtime panic
	return C.CHRONON_OK
}
