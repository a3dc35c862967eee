package mmapio

import (
	"fmt"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/schema"
)

// State says how much of a file could be trusted.
type State uint8

const (
	// StateComplete: header, schema and footer index are all present and valid.
	StateComplete State = iota
	// StateRecovered: there is no usable footer (the writer died before
	// close, the file was cut short, or it was written without an index);
	// the blocks were found by walking their inline headers.
	StateRecovered
	// StateNotATrace: the file is not a .ctrace file (Probe reports it; Open
	// returns an error matching ErrNotATrace).
	StateNotATrace
)

func (s State) String() string {
	switch s {
	case StateComplete:
		return "complete"
	case StateRecovered:
		return "recovered"
	case StateNotATrace:
		return "not a trace"
	}
	return "unknown"
}

// Status describes what Open found.
type Status struct {
	State State
	// Blocks and Events count the blocks and events the reader will return.
	Blocks int
	Events uint64
	// Why is set when State is StateRecovered: why the footer was not used.
	Why string
	// TornOffset and TornBytes locate the tail that follows the last
	// complete block of a recovered file and is ignored (TornBytes 0: the
	// blocks run to the end of the file). TornReason says why the bytes at
	// TornOffset are not a complete block.
	TornOffset int64
	TornBytes  int64
	TornReason string
	// Damaged lists the blocks of a recovered file that did not decode
	// although good blocks follow them (a flipped bit, not a cut): they are
	// left out, each as "block at byte N does not decode: why".
	Damaged []string
	// CutShort: the header places the footer past the end of the file.
	// The file was closed and then cut short (a copy taken too early, a
	// full disk), not left unclosed by a crash: what the cut took is lost,
	// and the readers say so.
	CutShort bool
}

func (s Status) String() string {
	switch s.State {
	case StateComplete:
		return "complete"
	case StateRecovered:
		var b strings.Builder
		fmt.Fprintf(&b, "recovered: %d blocks, %d events found by walking inline block headers (%s)", s.Blocks, s.Events, s.Why)
		if s.TornBytes > 0 {
			fmt.Fprintf(&b, "; torn tail of %d bytes at byte %d ignored: %s", s.TornBytes, s.TornOffset, s.TornReason)
		} else {
			b.WriteString("; no torn tail")
		}
		if len(s.Damaged) > 0 {
			what := "damaged blocks"
			if len(s.Damaged) == 1 {
				what = "damaged block"
			}
			fmt.Fprintf(&b, "; %d %s left out (first: %s)", len(s.Damaged), what, s.Damaged[0])
		}
		return b.String()
	}
	return s.State.String()
}

// Block is one event block as the reader knows it: the footer's entry for
// it (for a recovered file, its inline header and where the walk found it).
// DataOffset is the file offset of the block's inline header, as in the
// footer; Index is its position in Reader.Blocks; Units lists the units
// whose events it holds (sorted) as the writer recorded them or as
// verification found them in a recovered file, nil when unknown (files of
// the original writer).
type Block = schema.BlockIndex

func statusOf(s tracefile.Status) Status {
	st := Status{State: StateComplete, Blocks: s.Blocks, Events: s.Events, Why: s.Why,
		TornOffset: s.TornOffset, TornBytes: s.TornBytes, TornReason: s.TornReason, Damaged: s.Damaged, CutShort: s.CutShort}
	if s.Recovered {
		st.State = StateRecovered
	}
	return st
}
