package mmapio

import (
	"io"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/readerlink"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// What the module's other packages use below the Reader's public face
// (block-at-a-time reading for SQL scans and export pre-passes, the dump
// pipeline for the text package, the file for writing new files from its
// blocks) goes through internal/rawread, which takes this link.
func init() { readerlink.Set(link{}) }

type link struct{}

// File returns the file r reads.
func (link) File(r *Reader) *tracefile.File { return r.f }

// Selector returns the selector of q's events.
func (link) Selector(q Query) *tracefile.Selector { return q.selector() }

// Event returns event i of block d, decoded from r.
func (link) Event(r *Reader, d *tracefile.Decoded, i int) Event { return r.eventOf(d, &d.Recs[i]) }

// IterDecoded is Iter taking the blocks given, decoded for q (see
// iterDecoded).
func (link) IterDecoded(r *Reader, q Query, given []*tracefile.Decoded) *Iterator {
	return r.iterDecoded(q, given)
}

// Index is the position of it's current event among the events of its
// block that its query selects, -1 when none (see Iterator.index).
func (link) Index(it *Iterator) int { return it.index() }

// Program returns f compiled for printing.
func (link) Program(f *Format) *ctext.Format { return f.program() }

// WriteLines writes the lines of the events q selects to w, rendered with
// lines on the pipeline's workers (see Reader.writeLines).
func (link) WriteLines(r *Reader, w io.Writer, q Query, limit int, lines *ctext.Lines) (int, error) {
	return r.writeLines(w, q, limit, lines)
}
