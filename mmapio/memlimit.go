package mmapio

// The memory budget bounds what an iteration holds live; what the process
// takes besides is up to the garbage collector, which by default lets the
// heap grow to twice what is live (GOGC=100) before collecting. A program
// that wants its peak to follow the budget sets a soft memory limit
// (debug.SetMemoryLimit or GOMEMLIMIT) of ProcessMemoryLimit(budget), as
// trace_reader does from --memory.

// memoryLimitSlack is what the limit allows beyond the budget: the memory
// a Reader holds that the budget does not count (the footer's index, the
// zstd decoders' state, goroutine stacks, the free lists' idle buffers up
// to their caps are counted by the budget when an iteration takes them)
// and the collector's own metadata. The mapping of the file is not Go
// memory and is not counted by the limit either.
const memoryLimitSlack = 32 << 20

// ProcessMemoryLimit is the soft memory limit (debug.SetMemoryLimit) of a
// process that reads with a memory budget of budget bytes: budget plus a
// fixed slack (32 MiB) for what the budget does not count.
func ProcessMemoryLimit(budget int64) int64 { return budget + memoryLimitSlack }
