package tracesql

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/internal/cyclenum"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Option narrows or tunes a database.
type Option func(*config) error

type config struct {
	hasCycles   bool
	start, end  uint64
	hasUnit     bool
	unit        string
	threads     int
	budget      int64 // 0: mmapio's default
	runNames    bool
	skipDamaged bool
}

// WithCycles restricts every table to the events with start <= cycle <= end
// (as trace_reader filter --cycles): only the blocks that overlap are read.
func WithCycles(start, end uint64) Option {
	return func(c *config) error { c.hasCycles, c.start, c.end = true, start, end; return nil }
}

// WithUnit restricts every table to the events of the units sel selects,
// written as trace_reader filter --unit takes it: a part of the name
// (core1.l2), a pattern on the whole name (core1.*), =NAME for exactly
// NAME (=ROB[0].Top.incoming); a backslash escapes the next character. Open
// fails when no unit matches, or when sel is a malformed pattern.
func WithUnit(sel string) Option {
	return func(c *config) error { c.hasUnit, c.unit = true, sel; return nil }
}

// WithThreads sets DuckDB's worker threads (0: its default, one per core).
func WithThreads(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("tracesql: WithThreads(%d): want 0 or more", n)
		}
		c.threads = n
		return nil
	}
}

// WithMemoryBudget bounds the decoded data the database's scans hold at
// once, over all DuckDB's threads, and each ordered read of a trace (spans,
// the Parquet export), as mmapio.WithMemoryBudget bounds an iteration's:
// default mmapio.DefaultMemoryBudget, n in [mmapio.MinMemoryBudget,
// mmapio.MaxMemoryBudget]. DuckDB's own memory (hash tables, sorts, the
// Parquet writer's row groups) is DuckDB's memory_limit setting.
func WithMemoryBudget(n int64) Option {
	return func(c *config) error {
		if n < mmapio.MinMemoryBudget || n > mmapio.MaxMemoryBudget {
			return fmt.Errorf("tracesql: WithMemoryBudget(%d): want %d..%d bytes", n, int64(mmapio.MinMemoryBudget), int64(mmapio.MaxMemoryBudget))
		}
		c.budget = n
		return nil
	}
}

// WithRunNames names the tables as a dataset of many runs needs them
// (export --dataset): from each format's own text, the same in every run.
// A named span's table is NAME_spans, never a format's first word: the
// format fetch pc={} is fetch_ whether its run has a span fetch or not
// (that span is fetch_spans), so that a table of the dataset holds one
// table of each run, never a format's events in one run and a span's in
// another. Without it a span takes its name first (fetch_, and the format
// fetch_<id>), as the tables of the traces opened together are named.
func WithRunNames() Option {
	return func(c *config) error { c.runNames = true; return nil }
}

// WithSkipDamaged opens a dataset (a directory of Parquet files) one of
// whose files is damaged (cut short, its footer unreadable): that file is
// left out of its table, the others read, and DB.Skipped names it. Without
// it Open refuses the dataset with an error naming the file.
func WithSkipDamaged() Option {
	return func(c *config) error { c.skipDamaged = true; return nil }
}

// ParseCycles parses START-END (inclusive), START- or START (from there
// on), each decimal or 0x hex: the form of --cycles and of the tables'
// cycles parameter.
func ParseCycles(s string) (start, end uint64, err error) {
	if start, end, err = cyclenum.Range(s); err != nil {
		return 0, 0, fmt.Errorf("cycles %q: %v", s, err)
	}
	return start, end, nil
}
