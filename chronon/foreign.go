package chronon

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/cabi"
	"github.com/chronon-sim/chronon-go/schema"
)

// Foreign units are units whose producer is not Go code: a C or C++ thread
// that emits through cgo/chronon.h. Crossing from C into Go costs 100 to
// 200 ns, twenty times an emit, so the C producer writes events straight
// into the ring, which lives in memory mapped outside the Go heap, and
// follows docs/ring.md; it calls into Go (waitForRoom) only to wait for room
// under the Block policy. The Go side polls such rings (no wake-ups come
// from C), seals their partly filled chunks on Flush and Close, and keeps the
// memory mapped after Close so that a late emit finds "closed", not a hole.

// The C library reaches these through internal/cabi: they are not part of
// the API a Go simulator sees.
func init() {
	cabi.NewForeignUnit = func(t any, name string, opts any) (any, unsafe.Pointer, error) {
		u, ring, err := t.(*Tracer).newForeignUnit(name, opts.([]UnitOption)...)
		if err != nil {
			return nil, nil, err // a nil *Unit in an any would not be nil
		}
		return u, ring, nil
	}
	cabi.WaitForRoom = waitForRoom
	cabi.Free = func(t any) error { return t.(*Tracer).free() }
}

// newForeignUnit creates a unit for a C producer and returns it with the
// address of its ring (the control block of docs/ring.md). The memory stays
// valid until free.
func (t *Tracer) newForeignUnit(name string, opts ...UnitOption) (*Unit, unsafe.Pointer, error) {
	u, err := t.NewUnit(name, append(opts, func(c *unitConfig) error { c.foreign = true; return nil })...)
	if err != nil {
		return nil, nil, err
	}
	return u, unsafe.Pointer(u.ring.hdr), nil
}

var foreignRings sync.Map // control block address -> *Unit

func registerForeign(u *Unit) { foreignRings.Store(uintptr(unsafe.Pointer(u.ring.hdr)), u) }

// waitForRoom is the C producer's slow-path wait (Block policy): it returns
// nil once the ring at ringAddr has a free chunk, ErrClosed when the tracer
// closed meanwhile.
func waitForRoom(ringAddr unsafe.Pointer) error {
	v, ok := foreignRings.Load(uintptr(ringAddr))
	if !ok {
		return cabi.ErrUnknownRing
	}
	u := v.(*Unit)
	h := u.ring.hdr
	for h.headLocal-h.tail.Load() >= u.ring.nChunks {
		if h.flags.Load()&flagClosed != 0 || !u.wait(h.headLocal) {
			return ErrClosed
		}
	}
	return nil
}

// sealForeign seals a foreign unit's partly filled chunk on its producer's
// behalf (Flush, Close: no emit is in flight), exactly as chronon.h does.
func (u *Unit) sealForeign() {
	h, r := u.ring.hdr, u.ring
	if h.hasChunk == 0 || h.off == 0 {
		return
	}
	h.lim.Store(0)
	r.lens[h.headLocal&(r.nChunks-1)] = min(h.off, r.chunkSize)
	h.headLocal++
	h.head.Store(h.headLocal)
	h.hasChunk, h.off = 0, 0
}

// free releases the memory of the tracer's foreign rings. It runs after
// Close, once no C code will touch the units again; without foreign units
// it does nothing.
func (t *Tracer) free() error {
	if !t.closed.Load() {
		return errors.New("chronon: Free before Close")
	}
	var first error
	for _, u := range t.unitList() {
		if u.foreign && u.ring.unmap != nil {
			foreignRings.Delete(uintptr(unsafe.Pointer(u.ring.hdr)))
			if err := u.ring.unmap(); err != nil && first == nil {
				first = err
			}
			u.ring.unmap = nil
		}
	}
	return first
}

// DynamicFormat is a format registered with argument types given at run
// time, for foreign producers (the C API) and for Go programs that build
// formats from configuration. Go code with static types should use FormatN.
type DynamicFormat struct {
	format
}

// NewDynamicFormat registers text with the given argument types.
func NewDynamicFormat(text string, types []schema.ArgType, opts ...FormatOption) (*DynamicFormat, error) {
	if len(types) > 255 {
		return nil, fmt.Errorf("chronon: format %q: %d arguments (at most 255)", text, len(types))
	}
	for i, ty := range types {
		if !ty.Valid() {
			return nil, fmt.Errorf("chronon: format %q: argument %d has unknown type %d", text, i, ty)
		}
	}
	f := &DynamicFormat{}
	if err := f.register(text, append([]schema.ArgType(nil), types...), opts, 2); err != nil {
		return nil, err
	}
	return f, nil
}

// ArgTypes returns the argument types.
func (f *DynamicFormat) ArgTypes() []schema.ArgType { return f.info.ArgTypes }

// FixedArgsSize is the size of the non-string arguments.
func (f *DynamicFormat) FixedArgsSize() int { return int(f.argsSize) }

// HasStrings reports whether some argument is a string.
func (f *DynamicFormat) HasStrings() bool { return f.varSize }

// EmitEncoded records an event whose arguments the caller encoded (each in
// the format's types, little-endian, strings NUL-terminated). It checks the
// encoding and returns an error instead of writing a malformed event. Call
// it from the goroutine that owns u, or from any goroutine if u is shared.
func (f *DynamicFormat) EmitEncoded(u *Unit, cycle uint64, args []byte) error {
	if u.foreign {
		return errors.New("chronon: EmitEncoded on a foreign unit (its producer is C code)")
	}
	if !u.Enabled(f.category) || cycle-u.wlo > u.wspan {
		return nil
	}
	if err := checkEncoded(f.info.ArgTypes, args, u.maxArgs); err != nil {
		return fmt.Errorf("chronon: format %q: %w", f.info.Format, err)
	}
	if u.shared {
		u.smu.Lock()
		defer u.smu.Unlock()
	}
	size := uint32(schema.EventHeaderSize + len(args))
	off := u.off
	if off+size > u.lim.Load() {
		if !u.reserve(size) {
			return nil
		}
		off = 0
	}
	p := u.putHeader(off, cycle, &f.format, uint16(len(args)))
	copy(unsafe.Slice((*byte)(p), len(args)), args)
	u.off = off + size
	if f.varSize {
		u.chunkVar = true
	}
	return nil
}

// checkEncoded verifies that args holds exactly one value of each type.
func checkEncoded(types []schema.ArgType, args []byte, maxArgs int) error {
	if len(args) > maxArgs {
		return fmt.Errorf("%d bytes of arguments exceed the unit's %d", len(args), maxArgs)
	}
	p := 0
	for i, t := range types {
		if t == schema.ArgString {
			n := 0
			for p+n < len(args) && args[p+n] != 0 {
				n++
			}
			if p+n >= len(args) {
				return fmt.Errorf("argument %d: string without NUL terminator", i)
			}
			p += n + 1
			continue
		}
		if p+t.Size() > len(args) {
			return fmt.Errorf("argument %d (%v) runs past the %d bytes given", i, t, len(args))
		}
		p += t.Size()
	}
	if p != len(args) {
		return fmt.Errorf("%d bytes left over after the last argument", len(args)-p)
	}
	return nil
}
