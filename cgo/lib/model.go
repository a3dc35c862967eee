package main

// The Go side of chronon_intern and chronon_unit_set_time_base (api.c).

/*
#include <stdint.h>
#include "chronon.h"
*/
import "C"

import (
	"unsafe"

	"github.com/chronon-sim/chronon-go/chronon"
)

//export chronon__go_intern
func chronon__go_intern(id C.uint64_t, s *C.char, n C.size_t, out *C.uint32_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_intern")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_intern", errUnknownTracer)
	}
	if uint64(n) > 1<<30 {
		return fail(eb, en, "chronon_intern", argErr("a string of %d bytes", uint64(n)))
	}
	// Intern copies a string it adds; a lookup of a known one does not
	// keep it, so the bytes are read in place.
	*out = C.uint32_t(e.t.Intern(unsafe.String((*byte)(unsafe.Pointer(s)), int(n))))
	return C.CHRONON_OK
}

//export chronon__go_unit_time_base
func chronon__go_unit_time_base(id C.uint64_t, u *C.chronon_unit, num, den C.uint64_t, eb *C.char, en C.size_t) (st C.int) {
	defer guard(&st, eb, en, "chronon_unit_set_time_base")
	e := lookupTracer(id)
	if e == nil {
		return fail(eb, en, "chronon_unit_set_time_base", errUnknownTracer)
	}
	unit := e.unit(u)
	if unit == nil {
		return fail(eb, en, "chronon_unit_set_time_base", errNotAUnit)
	}
	if err := unit.SetTimeBase(chronon.TimeBase{Num: uint64(num), Den: uint64(den)}); err != nil {
		return fail(eb, en, "chronon_unit_set_time_base", argErr("%s", err.Error()))
	}
	return C.CHRONON_OK
}

var errNotAUnit = &statusError{st: C.CHRONON_ERR_HANDLE, msg: "not a unit of this tracer"}

// unit returns the unit whose ring is at u, or nil.
func (e *tracerEntry) unit(u *C.chronon_unit) *chronon.Unit {
	e.unitsMu.Lock()
	defer e.unitsMu.Unlock()
	return e.units[unsafe.Pointer(u)]
}
