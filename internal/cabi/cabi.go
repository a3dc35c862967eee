// Package cabi is what the C library (cgo/lib) needs of package chronon and
// a Go simulator never does: units whose producer is C code, the slow-path
// wait of a C producer, and the release of their rings. Package chronon
// fills the hooks in when it is initialized, so they stay out of its public
// API: `go doc chronon` shows only what a Go simulator needs. Being internal,
// this package can be imported only from this module.
//
// The hooks take chronon's types as any (this package cannot import chronon,
// which imports it); the values are exactly the ones documented on each.
// None of them is on an emit path.
package cabi

import (
	"errors"
	"unsafe"
)

// ErrUnknownRing reports a ring address that no live foreign unit owns.
var ErrUnknownRing = errors.New("chronon: not the ring of a foreign unit")

var (
	// NewForeignUnit creates a unit of tracer (a *chronon.Tracer) for a C
	// producer, with opts ([]chronon.UnitOption), and returns it (a
	// *chronon.Unit) with the address of its ring (the control block of
	// docs/ring.md), which stays valid until Free.
	NewForeignUnit func(tracer any, name string, opts any) (unit any, ring unsafe.Pointer, err error)

	// WaitForRoom is the C producer's wait under the Block policy: nil once
	// the ring at ring has a free chunk, chronon.ErrClosed when the tracer
	// closed meanwhile, ErrUnknownRing for an address no live unit owns.
	WaitForRoom func(ring unsafe.Pointer) error

	// Free unmaps the foreign rings of tracer (a *chronon.Tracer), after
	// Close, once no C code touches its units again.
	Free func(tracer any) error
)
