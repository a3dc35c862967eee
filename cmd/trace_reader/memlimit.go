package main

import (
	"os"
	"runtime/debug"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The memory budget (--memory) bounds what a reading iteration holds live;
// how much garbage the process carries besides is the collector's choice,
// which by default lets the heap grow well past what is live. A soft
// memory limit of the budget plus mmapio's slack (ProcessMemoryLimit, one
// budget per input: diff and merge iterate their files at once) makes it
// collect before the process outgrows that. GOMEMLIMIT, when set, wins.
// The file's mapping is not Go memory: the limit does not count it.

// memoryLimit is the soft memory limit for command line c, 0 for none
// (GOMEMLIMIT set, or a command line that does not parse).
func memoryLimit(c *config, env string) int64 {
	if env != "" || c == nil {
		return 0
	}
	budget := c.memory
	if budget == 0 {
		budget = mmapio.DefaultMemoryBudget
	}
	per := budget
	if c.command == "export" && c.format == export.FormatKanata {
		per += export.KanataMemory(budget) // the blocks its pre-pass keeps, beyond the budget
	}
	return mmapio.ProcessMemoryLimit(per * int64(max(1, len(c.files))))
}

// setMemoryLimit sets the soft memory limit for the command line args.
func setMemoryLimit(args []string) {
	c, err := parseArgs(args)
	if err != nil {
		return // run reports it, or the command parses its own (sql)
	}
	if l := memoryLimit(c, os.Getenv("GOMEMLIMIT")); l > 0 {
		debug.SetMemoryLimit(l)
		processLimit.Store(l)
	}
}

// processLimit is the soft memory limit setMemoryLimit set (0: none, as
// with GOMEMLIMIT set): what an export keeps live beyond the budget is
// added to it while it lives (export.WithLiveState).
var processLimit atomic.Int64
