package analysis

import (
	"fmt"
	"io"

	"github.com/chronon-sim/chronon-go/tracetext"
)

// ImpossibleSpan is a complete span Stats left out: its end (Cycle + Dur)
// is past the last cycle, what a writer records as end-start when end is
// before start, or its signed duration is negative. Read as a duration it
// would be about 1.8e19 cycles.
type ImpossibleSpan struct {
	Unit  string `json:"unit"`
	Span  string `json:"span"`
	Cycle uint64 `json:"cycle"`
	Dur   int64  `json:"dur"` // the duration as recorded, read as signed: end - begin
}

// maxImpossible is how many impossible spans a report names; the note
// complete_spans_ending_before_they_begin counts them all.
const maxImpossible = 5

// impossibleSpan counts a complete span that ends before it begins and
// names the first few.
func (s *stater) impossibleSpan(unit uint16, name string, c, dur uint64) {
	s.notes["complete_spans_ending_before_they_begin"]++
	if len(s.impossible) < maxImpossible {
		s.impossible = append(s.impossible, ImpossibleSpan{Unit: s.r.UnitName(unit), Span: name, Cycle: c, Dur: int64(dur)})
	}
}

// writeImpossible names the spans of rep.ImpossibleSpans under the notes.
func writeImpossible(w io.Writer, rep *Report) {
	for _, b := range rep.ImpossibleSpans {
		fmt.Fprintf(w, "    %s\n", tracetext.ImpossibleSpan(b.Span, b.Unit, b.Cycle, uint64(b.Dur)))
	}
	if n := rep.Notes["complete_spans_ending_before_they_begin"]; n > uint64(len(rep.ImpossibleSpans)) {
		fmt.Fprintf(w, "    ... and %d more\n", n-uint64(len(rep.ImpossibleSpans)))
	}
}
