package zrec

import "slices"

// tableCacheSize is how many FSE tables tableCache keeps. Blocks of one
// unit repeat their sequence statistics: on the pipeline workload a quarter
// of the sequence tables are normalized exactly like one of the last
// eight built (305 of 1200 in a million events), on W1 a third (357 of
// 984); on mixed formats almost none (1 of 1140), which costs a compare of
// the counts with eight others and a copy per table built.
const tableCacheSize = 8

// tableCache keeps the last FSE tables built for sequences, keyed by the
// normalized counts they were built from: a table depends on nothing else,
// so a repeated set of counts takes a copy of the table instead of a build
// (about 7,000 instructions for a 256-cell table; the copy is a memmove).
// The counts sum to 1<<tableLog, so tableLog in the key only saves the
// compare.
type tableCache struct {
	next    int
	entries [tableCacheSize]cachedTable
}

type cachedTable struct {
	n        int // len(norm); 0: unused
	tableLog uint8
	norm     [maxSymbolSize]int16
	t        fseTable
}

// build leaves in t the table fseTable.build makes from norm and
// tableLog: the parts the encoder reads (tableLog, the first 1<<tableLog
// states, the transforms of len(norm) symbols) are the same.
func (c *tableCache) build(t *fseTable, norm []int16, tableLog uint8) {
	n, size := len(norm), 1<<tableLog
	for i := range c.entries {
		e := &c.entries[i]
		if e.n == n && e.tableLog == tableLog && slices.Equal(e.norm[:n], norm) {
			t.tableLog = tableLog
			copy(t.st[:size], e.t.st[:size])
			copy(t.tt[:n], e.t.tt[:n])
			return
		}
	}
	t.build(norm, tableLog)
	if n == 0 || n > maxSymbolSize || size > maxTableSize {
		return
	}
	e := &c.entries[c.next]
	c.next = (c.next + 1) % tableCacheSize
	e.n, e.tableLog = n, tableLog
	copy(e.norm[:], norm)
	e.t.tableLog = tableLog
	copy(e.t.st[:size], t.st[:size])
	copy(e.t.tt[:n], t.tt[:n])
}
