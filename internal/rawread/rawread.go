// Package rawread reads a mmapio.Reader below its public face, for the
// module's own packages: the file it reads (to write new files from its
// blocks), its blocks one at a time in any order (SQL scans on several
// threads, export pre-passes), an iteration that takes blocks decoded
// already, the dump pipeline with a line renderer, and fault catching for
// code that reads what aliases the mapping.
package rawread

import (
	"io"
	"runtime/debug"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/readerlink"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// lender is what mmapio lends (its link type implements it).
type lender interface {
	File(r *mmapio.Reader) *tracefile.File
	Selector(q mmapio.Query) *tracefile.Selector
	Event(r *mmapio.Reader, d *tracefile.Decoded, i int) mmapio.Event
	IterDecoded(r *mmapio.Reader, q mmapio.Query, given []*tracefile.Decoded) *mmapio.Iterator
	Index(it *mmapio.Iterator) int
	Program(f *mmapio.Format) *ctext.Format
	WriteLines(r *mmapio.Reader, w io.Writer, q mmapio.Query, limit int, lines *ctext.Lines) (int, error)
}

// link is mmapio's; this package imports mmapio, so mmapio was initialized
// (and set it) first.
var link = readerlink.Get().(lender)

// File returns the file r reads.
func File(r *mmapio.Reader) *tracefile.File { return link.File(r) }

// Program returns f compiled for printing (nil for a nil f).
func Program(f *mmapio.Format) *ctext.Format {
	if f == nil {
		return nil
	}
	return link.Program(f)
}

// WriteLines writes the lines of the events q selects to w, in cycle
// order, at most limit (0: no limit), rendered with lines on the
// iteration's workers, and returns how many it wrote. A block that fails
// to decode ends it with its error after the lines of the cycle ranges
// before it (also r.Err).
func WriteLines(r *mmapio.Reader, w io.Writer, q mmapio.Query, limit int, lines *ctext.Lines) (int, error) {
	return link.WriteLines(r, w, q, limit, lines)
}

// Decodes returns how many blocks r has decoded for queries so far
// (iterations, dumps and Decode): what a seek cost, for tools and tests
// that check a window decodes only the blocks that overlap it.
func Decodes(r *mmapio.Reader) int64 { return File(r).Decodes() }

// MemoryBudget returns r's memory budget (mmapio.WithMemoryBudget, else
// the default): a caller holding decoded blocks of its own (Decode,
// IterDecoded) sizes them by it.
func MemoryBudget(r *mmapio.Reader) int64 { return File(r).Options().MemBudget }

// PanicOnFault makes a fault on a mapping panic in the calling goroutine
// instead of killing the process, and returns the previous setting; see
// CatchFault.
func PanicOnFault() bool { return tracefile.PanicOnFault() }

// CatchFault is for code that reads what aliases r's mapping (Event.RawArgs,
// Args and Arg.Raw of uncompressed blocks) while the file may shrink:
//
//	func use(r *mmapio.Reader) (err error) {
//		defer rawread.CatchFault(r, &err, rawread.PanicOnFault())
//		for ev := range r.Events(q) { ... ev.RawArgs() ... }
//
// It restores the goroutine's setting and turns a fault into a
// *mmapio.FaultError in *errp (and r.Err); any other panic goes on.
func CatchFault(r *mmapio.Reader, errp *error, old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil { // recover stops the panic only here, in the deferred function
		f := File(r)
		fe := f.Fault(v)
		if fe == nil {
			panic(v)
		}
		*errp = fe
		f.SetErr(fe)
	}
}

// CatchFaultMulti is CatchFault for code reading what aliases any of m's
// files' mappings: a fault becomes a *mmapio.FaultError naming the file
// whose mapping faulted.
func CatchFaultMulti(m *mmapio.Multi, errp *error, old bool) {
	debug.SetPanicOnFault(old)
	if v := recover(); v != nil {
		var first *tracefile.FaultError
		for _, r := range m.Readers() {
			f := File(r)
			fe := f.Fault(v)
			if fe == nil {
				panic(v)
			}
			if first == nil || fe.Offset >= 0 {
				first = fe
			}
			if fe.Offset >= 0 {
				f.SetErr(fe)
				break
			}
		}
		*errp = first
	}
}
