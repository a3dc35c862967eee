package tracesql

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/internal/cyclenum"
)

// Option narrows or tunes a database.
type Option func(*config)

type config struct {
	hasCycles  bool
	start, end uint64
	hasUnit    bool
	unit       string
	threads    int
}

// WithCycles restricts every table to the events with start <= cycle <= end
// (as trace_reader filter --cycles): only the blocks that overlap are read.
func WithCycles(start, end uint64) Option {
	return func(c *config) { c.hasCycles, c.start, c.end = true, start, end }
}

// WithUnit restricts every table to the events of the units sel selects,
// written as trace_reader filter --unit takes it: a part of the name
// (core1.l2), a pattern on the whole name (core1.*), =NAME for exactly
// NAME (=ROB[0].Top.incoming); a backslash escapes the next character. Open
// fails when no unit matches, or when sel is a malformed pattern.
func WithUnit(sel string) Option {
	return func(c *config) { c.hasUnit, c.unit = true, sel }
}

// WithThreads sets DuckDB's worker threads (0: its default, one per core).
func WithThreads(n int) Option { return func(c *config) { c.threads = n } }

// ParseCycles parses START-END (inclusive), START- or START (from there
// on), each decimal or 0x hex: the form of --cycles and of the tables'
// cycles parameter.
func ParseCycles(s string) (start, end uint64, err error) {
	if start, end, err = cyclenum.Range(s); err != nil {
		return 0, 0, fmt.Errorf("cycles %q: %v", s, err)
	}
	return start, end, nil
}
