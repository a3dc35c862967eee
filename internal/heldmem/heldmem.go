// Package heldmem bounds what a reading pass holds for the state that
// grows with what is open at once rather than with the output: spans
// begun and not yet ended, and the lanes (tracks) seen, any of 2^64. A
// trace whose spans begin and never end, or whose lanes are all distinct,
// would otherwise grow without bound. The passes count what they hold and
// stop past a quarter of the reader's memory budget
// (mmapio.WithMemoryBudget, trace_reader's --memory) with an error naming
// the file, the cycle, the budget and the flag that raises it.
package heldmem

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// CheckMask: the held state is looked at every 4096 events, which costs
// nothing measurable and overshoots the limit by at most 4096 events'
// state.
const CheckMask = 4096 - 1

// Share is the part of the memory budget held state may take: a quarter
// (the rest is the reader's decoded blocks and the pass's output).
const Share = 4

// Limit is r's share for held state: at least 1 byte.
func Limit(r *mmapio.Reader) int64 { return max(rawread.MemoryBudget(r)/Share, 1) }

// Exceeded is the error of a pass over r that holds more than its share
// at cycle: "FILE: at cycle C HOLDS, more than a quarter of the memory
// budget (B): CAUSE? A larger budget (--memory) DOES".
func Exceeded(r *mmapio.Reader, cycle uint64, holds, cause, does string) error {
	return fmt.Errorf("%s: at cycle %d %s, more than a quarter of the memory budget (%s): %s? A larger budget (--memory) %s",
		r.Path(), cycle, holds, SizeText(rawread.MemoryBudget(r)), cause, does)
}

// SizeText writes n bytes in the largest binary unit that keeps it whole
// or at least 1 (rounded down): a held size below 1 MiB read "0 MiB",
// which is no reason to stop.
func SizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// OrdererOpenBytes is about what a spantree.Orderer keeps per async span
// open: an id's map entry, with the map's slack.
const OrdererOpenBytes = 64
