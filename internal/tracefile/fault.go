package tracefile

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
//	func (f *File) g() (err error) {
//		defer f.Guard(&err, PanicOnFault())
//
// (the argument is evaluated when the defer is reached: panics on fault
// from there on, and the old setting is restored on return). Workers that
// read the mapping set it once for their lifetime. A panic that is not a
// fault is re-raised unchanged.

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

// Fault returns the FaultError for a value recovered from a panic, or nil
// when v is not a fault. The faulting address is turned into an offset of
// the file when it lies in its mapping.
func (f *File) Fault(v any) *FaultError {
	fa, ok := v.(faultAddr)
	if !ok {
		return nil
	}
	fe := &FaultError{File: f.path, Offset: -1}
	if data := f.faultData(); len(data) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		if a := fa.Addr(); a >= base && a-base < uintptr(len(data)) {
			fe.Offset = int64(a - base)
		}
	}
	return fe
}

// Guard is deferred by a function that reads the mapping (see the comment
// at the top), with old the setting PanicOnFault returned: it restores the
// goroutine's panic-on-fault setting and turns a fault into *errp and the
// file's Err. Any other panic goes on.
func (f *File) Guard(errp *error, old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		fe := f.Fault(v)
		if fe == nil {
			panic(v)
		}
		*errp = fe
		f.SetErr(fe) // what Err reports after an iteration
	}
}

// faultData is the mapping (data is cleared by Close).
func (f *File) faultData() []byte {
	if f.m != nil {
		return f.m.data
	}
	return f.data
}

// PanicOnFault makes a fault on a mapping panic in the calling goroutine
// instead of killing the process (see the comment at the top) and returns
// the previous setting, for Guard.
func PanicOnFault() bool { return debug.SetPanicOnFault(true) }
