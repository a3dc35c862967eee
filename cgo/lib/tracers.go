package main

/*
#include "chronon.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"
	"unsafe"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// C holds tracer handles, not Go pointers (cgo forbids C from keeping
// those): a handle is a number, never reused, so a call with a closed,
// destroyed or made-up handle finds nothing and returns a status.
type tracerEntry struct {
	t *chronon.Tracer

	mu       sync.Mutex // serializes close and destroy of this tracer
	closed   bool
	closeErr error

	unitsMu sync.Mutex
	units   map[unsafe.Pointer]*chronon.Unit // ring address -> unit
}

var tracers = struct {
	sync.Mutex
	m    map[uint64]*tracerEntry
	next uint64
}{m: map[uint64]*tracerEntry{}}

func addTracer(t *chronon.Tracer) uint64 {
	tracers.Lock()
	defer tracers.Unlock()
	tracers.next++
	tracers.m[tracers.next] = &tracerEntry{t: t, units: map[unsafe.Pointer]*chronon.Unit{}}
	return tracers.next
}

func lookupTracer(id C.uint64_t) *tracerEntry {
	tracers.Lock()
	defer tracers.Unlock()
	return tracers.m[uint64(id)]
}

func dropTracer(id C.uint64_t) {
	tracers.Lock()
	defer tracers.Unlock()
	delete(tracers.m, uint64(id))
}

// statusError is an error with the status C should see.
type statusError struct {
	st  C.int
	msg string
}

func (e *statusError) Error() string { return e.msg }

func argErr(format string, a ...any) error {
	return &statusError{st: C.CHRONON_ERR_ARG, msg: fmt.Sprintf(format, a...)}
}

// statusOf maps an error of the Go runtime to a status.
func statusOf(err error) C.int {
	var se *statusError
	var pe *fs.PathError
	switch {
	case err == nil:
		return C.CHRONON_OK
	case errors.As(err, &se):
		return se.st
	case errors.Is(err, chronon.ErrClosed):
		return C.CHRONON_CLOSED
	case errors.As(err, &pe), errors.Is(err, chronon.ErrOutputLocked):
		return C.CHRONON_ERR_IO
	}
	return C.CHRONON_ERR_ARG
}

// goString copies a C string; NULL is "".
func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// tracerOptions converts chronon_options (zero fields: defaults).
func tracerOptions(o *C.chronon_options) ([]chronon.Option, error) {
	if o == nil {
		return nil, nil
	}
	var opts []chronon.Option
	if o.block_size != 0 {
		opts = append(opts, chronon.WithBlockSize(int(o.block_size)))
	}
	switch lvl := int(o.level); {
	case lvl == 0:
	case lvl == C.CHRONON_LEVEL_NONE:
		opts = append(opts, chronon.WithLevel(chronon.LevelNone))
	default:
		opts = append(opts, chronon.WithLevel(lvl)) // validates 1..22
	}
	if o.ring_size != 0 {
		if uint64(o.ring_size) > 1<<40 {
			return nil, argErr("ring size %d is too large", uint64(o.ring_size))
		}
		opts = append(opts, chronon.WithRingSize(int(o.ring_size)))
	}
	switch o.policy {
	case C.CHRONON_POLICY_BLOCK:
	case C.CHRONON_POLICY_DROP:
		opts = append(opts, chronon.WithPolicy(chronon.Drop))
	default:
		return nil, argErr("unknown policy %d (CHRONON_POLICY_BLOCK or CHRONON_POLICY_DROP)", int(o.policy))
	}
	if o.compression_workers != 0 {
		opts = append(opts, chronon.WithCompressionWorkers(int(o.compression_workers)))
	}
	switch ns := int64(o.flush_interval_ns); {
	case ns < 0:
		opts = append(opts, chronon.WithFlushInterval(0))
	case ns > 0:
		opts = append(opts, chronon.WithFlushInterval(time.Duration(ns)))
	}
	if o._select != nil { // NULL: Create reads CHRONON_TRACE
		opts = append(opts, chronon.WithSelect(C.GoString(o._select)))
	}
	if o.default_mask != 0 {
		opts = append(opts, chronon.WithDefaultMask(uint64(o.default_mask)))
	}
	if o.simulation_name != nil {
		opts = append(opts, chronon.WithSimulationName(C.GoString(o.simulation_name)))
	}
	if o.config_hash != 0 {
		opts = append(opts, chronon.WithConfigHash(uint64(o.config_hash)))
	}
	if o.n_metadata > 0 {
		if o.metadata == nil {
			return nil, argErr("metadata is NULL but n_metadata is %d", uint64(o.n_metadata))
		}
		if o.n_metadata > 1<<20 {
			return nil, argErr("n_metadata %d is implausible", uint64(o.n_metadata))
		}
		for i, kv := range unsafe.Slice(o.metadata, int(o.n_metadata)) {
			if kv.key == nil {
				return nil, argErr("metadata[%d]: key is NULL", i)
			}
			opts = append(opts, chronon.WithMetadata(C.GoString(kv.key), goString(kv.value)))
		}
	}
	if o.unit_id_base != 0 {
		if o.unit_id_base > 65535 {
			return nil, argErr("unit_id_base %d is not 1..65535", uint32(o.unit_id_base))
		}
		opts = append(opts, chronon.WithUnitIDBase(uint16(o.unit_id_base)))
	}
	if o.no_auto_metadata != 0 {
		opts = append(opts, chronon.WithAutoMetadata(false))
	}
	if tb := o.time_base; tb.num != 0 || tb.den != 0 {
		opts = append(opts, chronon.WithTimeBase(chronon.TimeBase{Num: uint64(tb.num), Den: uint64(tb.den)}))
	}
	if o.symbol_limit != 0 {
		opts = append(opts, chronon.WithSymbolLimit(int(o.symbol_limit)))
	}
	return opts, nil
}

// unitOptions converts chronon_unit_options.
func unitOptions(typeName *C.char, o *C.chronon_unit_options) ([]chronon.UnitOption, error) {
	opts := []chronon.UnitOption{chronon.WithTypeName(goString(typeName))}
	if o == nil {
		return opts, nil
	}
	if o.id != 0 {
		opts = append(opts, chronon.WithUnitID(uint16(o.id)))
	}
	if o.has_mask != 0 {
		opts = append(opts, chronon.WithUnitMask(uint64(o.mask)))
	}
	if o.ring_size != 0 {
		if uint64(o.ring_size) > 1<<40 {
			return nil, argErr("ring size %d is too large", uint64(o.ring_size))
		}
		opts = append(opts, chronon.WithUnitRingSize(int(o.ring_size)))
	}
	switch o.shared {
	case 0:
	case 1:
		opts = append(opts, chronon.WithShared())
	default:
		return nil, argErr("shared is %d, not 0 or 1", uint16(o.shared))
	}
	return opts, nil
}

// formatOptions converts chronon_format_options for a format of n arguments.
func formatOptions(o *C.chronon_format_options, n int) ([]chronon.FormatOption, error) {
	// The Go runtime's default source is its caller, which here would be
	// this file: C formats record the location C gives, or none.
	if o == nil {
		return []chronon.FormatOption{chronon.WithSource("", 0)}, nil
	}
	opts := []chronon.FormatOption{chronon.WithSource(goString(o.file), int(o.line))}
	if o.category != 0 {
		opts = append(opts, chronon.WithCategory(uint64(o.category)))
	}
	if o.kind != 0 || o.roles != nil {
		if o.kind < 0 || o.kind > 255 {
			return nil, argErr("unknown event kind %d", int(o.kind))
		}
		var roles []schema.ArgRole
		if o.roles != nil {
			for _, r := range unsafe.Slice((*uint8)(unsafe.Pointer(o.roles)), n) {
				roles = append(roles, schema.ArgRole(r))
			}
		}
		opts = append(opts, chronon.WithKind(schema.EventKind(o.kind), roles...))
	}
	if o.name != nil {
		opts = append(opts, chronon.WithName(C.GoString(o.name)))
	}
	if o.is_log != 0 {
		if o.log_level < 0 || o.log_level > 3 {
			return nil, argErr("log level %d is not 0..3", int(o.log_level))
		}
		opts = append(opts, chronon.AsLog(uint8(o.log_level)))
	}
	return opts, nil
}
