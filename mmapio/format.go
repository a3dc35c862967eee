package mmapio

import (
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/schema"
)

// Format is one registered format string. The embedded schema.Format is
// the decoded entry: its text, argument types, names, kind and source.
type Format struct {
	schema.Format
	argNames []string
	prog     atomic.Pointer[ctext.Format] // compiled for printing messages, on first use
	symbols  []string                     // the schema's symbol table, which Symbol arguments index
}

// newFormat makes format f of a schema whose symbol table is symbols. Its
// text is compiled when a message is first printed with it: a schema of
// 100,000 formats opened for a query that prints none spent most of its
// start compiling them.
func newFormat(f schema.Format, symbols []string) *Format {
	names := f.ArgNames
	if len(names) == 0 {
		names = schema.ArgNames(f.Format)
	}
	return &Format{Format: f, argNames: names, symbols: symbols}
}

// Text returns the format string as registered (fetch pc=0x{:x} taken={}),
// raw: control characters are not escaped (Event.Message escapes them).
func (f *Format) Text() string { return f.Format.Format }

// ArgName returns the name of argument i: the one the writer recorded, or
// else the one derived from the text before its placeholder.
func (f *Format) ArgName(i int) string {
	if i >= 0 && i < len(f.argNames) {
		return f.argNames[i]
	}
	return ""
}

// program returns f's compiled form, nil for a nil f. Goroutines that
// compile it at once each compile the same program; one is kept.
func (f *Format) program() *ctext.Format {
	if f == nil {
		return nil
	}
	if p := f.prog.Load(); p != nil {
		return p
	}
	f.prog.CompareAndSwap(nil, ctext.CompileFormat(&f.Format, f.symbols))
	return f.prog.Load()
}
