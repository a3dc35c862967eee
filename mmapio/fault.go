package mmapio

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// Faults on the mapping.
//
// A file that shrinks while it is mapped (truncated by another process, a
// storage error under it) turns a read of the lost pages into SIGBUS, which
// kills the process. debug.SetPanicOnFault turns it into a panic with a
// runtime.Error that has an Addr method, in the goroutine that set it only.
// So every goroutine that reads the mapping sets it around the reads, and
// the function that started them recovers the fault into a *FaultError:
//
//	func (r *Reader) f() (err error) {
//		defer r.guardFault(&err, panicOnFault())
//
// (the argument is evaluated when the defer is reached: panics on fault
// from there on, and the old setting is restored on return). Workers the
// package starts set it once for their lifetime. A panic that is not a
// fault is re-raised unchanged.
//
// Code outside the package that reads event arguments (Event.RawArgs and
// Args alias the mapping for uncompressed blocks) is not covered: a fault
// there behaves as the caller's goroutine is set up to.

// FaultError reports that reading the mapped file faulted: the file became
// shorter than when it was opened (or its storage failed) while it was read.
type FaultError struct {
	File    string
	Section string // the section read ("block 3", "schema"); "" when not known
	Offset  int64  // byte of the file whose page faulted; -1 when not known
}

func (e *FaultError) Error() string {
	file := e.File
	if e.Section != "" {
		file += ": " + e.Section
	}
	if e.Offset < 0 {
		return fmt.Sprintf("%s: reading the mapped file faulted: the file shrank or its storage failed while it was read", file)
	}
	return fmt.Sprintf("%s: reading byte %d of the mapped file faulted: the file shrank or its storage failed while it was read", file, e.Offset)
}

// faultAddr is the runtime.Error a fault raises under SetPanicOnFault.
type faultAddr interface {
	runtime.Error
	Addr() uintptr
}

// asFault returns the FaultError for a recovered value, or nil when v is
// not a fault. data is the mapping, to turn the address into an offset.
func asFault(v any, path string, data []byte) *FaultError {
	fa, ok := v.(faultAddr)
	if !ok {
		return nil
	}
	fe := &FaultError{File: path, Offset: -1}
	if len(data) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		if a := fa.Addr(); a >= base && a-base < uintptr(len(data)) {
			fe.Offset = int64(a - base)
		}
	}
	return fe
}

// guardFault is deferred by a function that reads the mapping (see the
// comment at the top): it restores the goroutine's panic-on-fault setting
// and turns a fault into *errp and the Reader's Err.
func (r *Reader) guardFault(errp *error, old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		fe := asFault(v, r.path, r.faultData())
		if fe == nil {
			panic(v)
		}
		*errp = fe
		r.setErr(fe) // what Err reports after an iteration
	}
}

// faultData is the mapping (r.data is cleared by Close).
func (r *Reader) faultData() []byte {
	if r.m != nil {
		return r.m.data
	}
	return r.data
}

// panicOnFault makes a fault on the mapping panic in this goroutine (see
// the comment at the top) and returns the previous setting.
func panicOnFault() bool { return debug.SetPanicOnFault(true) }

// guardSegment is deferred by segPipe.process, on a worker that panics on
// faults: a fault while the segment is merged or rendered ends the
// iteration there, with none of the segment's events (its state may be
// half built). Faults in decoding are already the block's error.
func (sp *segPipe) guardSegment(seg *segment) {
	if v := recover(); v != nil {
		fe := asFault(v, sp.r.path, sp.r.faultData())
		if fe == nil {
			panic(v)
		}
		seg.err, seg.last = fe, false
		seg.refs, seg.text = seg.refs[:0], seg.text[:0]
		seg.base, seg.rendered = 0, 0
	}
}

// guardFault is deferred by Iterator.nextSegment: a fault ends the
// iteration with the fault as its error (and the Reader's).
func (it *Iterator) guardFault(old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		fe := asFault(v, it.r.path, it.r.faultData())
		if fe == nil {
			panic(v)
		}
		it.err = fe
		it.r.setErr(fe)
		it.Close()
	}
}

// PanicOnFault makes a fault on a mapping panic in the calling goroutine
// instead of killing the process, and returns the previous setting; see
// CatchFault.
func PanicOnFault() bool { return panicOnFault() }

// CatchFault is for code outside the package that reads what aliases the
// mapping (Event.RawArgs, Args and Arg.Raw of uncompressed blocks, lines
// built with AppendLine) while the file may shrink:
//
//	func use(r *mmapio.Reader) (err error) {
//		defer r.CatchFault(&err, mmapio.PanicOnFault())
//		for ev := range r.Events(q) { ... ev.RawArgs() ... }
//
// It restores the goroutine's setting and turns a fault into a *FaultError
// in *errp (and Err); any other panic goes on.
func (r *Reader) CatchFault(errp *error, old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		fe := asFault(v, r.path, r.faultData())
		if fe == nil {
			panic(v)
		}
		*errp = fe
		r.setErr(fe)
	}
}
