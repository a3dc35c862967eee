package tracesql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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

// WithUnit restricts every table to the events of units whose name contains
// substr (as trace_reader filter --unit). Open fails when no unit matches.
func WithUnit(substr string) Option {
	return func(c *config) { c.hasUnit, c.unit = true, substr }
}

// WithThreads sets DuckDB's worker threads (0: its default, one per core).
func WithThreads(n int) Option { return func(c *config) { c.threads = n } }

// ParseCycles parses START-END (inclusive), START- or START (from there
// on), each decimal or 0x hex: the form of --cycles and of the tables'
// cycles parameter.
func ParseCycles(s string) (start, end uint64, err error) {
	bad := fmt.Errorf("cycles %q: want START-END, START- or START (decimal or 0x hex)", s)
	lo, hi, hasHi := strings.Cut(s, "-")
	if start, err = parseCycle(lo); err != nil {
		return 0, 0, bad
	}
	end = math.MaxUint64
	if hi = strings.TrimSpace(hi); hasHi && hi != "" {
		if end, err = parseCycle(hi); err != nil {
			return 0, 0, bad
		}
		if end < start {
			return 0, 0, fmt.Errorf("cycles %q: end before start", s)
		}
	}
	return start, end, nil
}

// parseCycle reads a decimal or 0x hex cycle (a leading zero stays
// decimal), as trace_reader's other commands and CHRONON_TRACE read it.
func parseCycle(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}
