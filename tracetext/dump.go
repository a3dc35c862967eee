package tracetext

import (
	"io"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// EscapeText returns s with its control characters escaped as the dump
// lines print them (\x1b, \n, ...; see the package documentation): s
// itself when there is nothing to escape. For tools that print names and
// strings from a trace.
func EscapeText(s string) string { return ctext.Escape(s) }

// AppendLine appends the event's dump line exactly as the original
// trace_reader printed it: "[%10d] unit: message\n", or "[%10d] message\n"
// when the unit has no name in r.
func AppendLine(dst []byte, r *mmapio.Reader, ev *mmapio.Event) []byte {
	dst = ctext.AppendCycle(dst, ev.Cycle)
	dst = ctext.AppendPrefix(dst, r.UnitName(ev.UnitID))
	dst = ev.AppendMessage(dst)
	return append(dst, '\n')
}

// WriteDump writes the dump lines of the events q selects to w, in cycle
// order, at most limit lines (0: no limit), and returns how many it wrote.
//
// Background goroutines decode the blocks, merge a cycle range at a time
// and render its lines; the calling goroutine only writes them out. A
// block that fails to decode ends the dump with its error (also r.Err)
// after the lines of the cycle ranges before it.
func WriteDump(w io.Writer, r *mmapio.Reader, q mmapio.Query, limit int) (count int, err error) {
	return rawread.WriteLines(r, w, q, limit, linesOf(r, r.UnitName))
}

// linesOf is what renders r's lines: its units named by name and its
// formats compiled.
func linesOf(r *mmapio.Reader, name func(id uint16) string) *ctext.Lines {
	maxUnit, maxFmt := -1, uint32(0)
	for _, u := range r.Units() {
		maxUnit = max(maxUnit, int(u.ID))
	}
	for _, f := range r.Formats() {
		maxFmt = max(maxFmt, f.ID)
	}
	names := make([]string, maxUnit+1)
	for id := range names {
		names[id] = name(uint16(id))
	}
	formats := ctext.NewFormatTable(maxFmt)
	for _, f := range r.Formats() {
		formats.Add(f.ID, rawread.Program(f)) // the first entry with an id wins, as r.Format
	}
	return ctext.NewLines(names, formats)
}
