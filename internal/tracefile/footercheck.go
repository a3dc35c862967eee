package tracefile

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/schema"
)

// footerCheck holds the footer's entries to what the conformance oracle
// (ctrace_oracle.py check) requires, as DecodeFooterIndex visits them:
// entry i records block_index i, every block is plausible and lies in the
// file after the end of the previous one (so no block is listed twice and
// none overlaps another), and the footer's totals are those of its blocks.
// A footer that lists one block twice would otherwise read as complete and
// print every event of that block twice.
//
// Whether each block's events agree with its entry (count, cycle range) is
// checked when the block is decoded, as for every block.
type footerCheck struct {
	size    uint64 // file size
	prevEnd uint64 // end of the previous block; the first block offset before entry 0
	prevOff uint64 // offset of the previous block's header
	events  uint64
	minC    uint64
	maxC    uint64

	wantCRC bool // the footer carries checksums: so must every entry

	badEntry int // entry of the first finding
	bad      string
}

func newFooterCheck(h schema.Header, size int) footerCheck {
	return footerCheck{size: uint64(size), prevEnd: h.FirstBlockOffset, badEntry: -1}
}

// entry checks entry i (a finding is what follows "blocks[i]" in the error); the first finding is kept and later entries are
// only summed (an error names one place).
func (c *footerCheck) entry(i int, e *schema.BlockIndex) {
	if c.bad == "" {
		c.bad = c.why(i, e)
		if c.bad != "" {
			c.badEntry = i
		}
	}
	c.events += uint64(e.EventCount) // at most 2^32 entries of 2^32: no overflow
	if i == 0 || e.MinCycle < c.minC {
		c.minC = e.MinCycle
	}
	c.maxC = max(c.maxC, e.MaxCycle)
	c.prevOff = e.DataOffset
	c.prevEnd = max(c.prevEnd, e.DataOffset+schema.BlockHeaderSize+uint64(e.CompressedSize))
}

func (c *footerCheck) why(i int, e *schema.BlockIndex) string {
	if why := plausible(e.Inline()); why != "" {
		return fmt.Sprintf(" (block at byte %d): %s", e.DataOffset, why)
	}
	if e.DataOffset < schema.HeaderSize || e.DataOffset > c.size || c.size-e.DataOffset < schema.BlockHeaderSize+uint64(e.CompressedSize) {
		return fmt.Sprintf(": block at byte %d with %d data bytes lies outside the %d-byte file", e.DataOffset, e.CompressedSize, c.size)
	}
	if e.DataOffset < c.prevEnd {
		switch {
		case i == 0:
			return fmt.Sprintf(": block at byte %d lies before the header's first block offset %d", e.DataOffset, c.prevEnd)
		case e.DataOffset == c.prevOff:
			return fmt.Sprintf(": lists the block at byte %d again (blocks[%d] is the same block)", e.DataOffset, i-1)
		default:
			return fmt.Sprintf(": block at byte %d overlaps the previous block, which ends at byte %d (entries must be in file order, without overlap)", e.DataOffset, c.prevEnd)
		}
	}
	if e.Index != uint32(i) {
		return fmt.Sprintf(": records block_index %d, want %d (entries are in file order)", e.Index, i)
	}
	if c.wantCRC && !e.HasCRC {
		return fmt.Sprintf(" (block at byte %d): no crc32c, but the footer carries checksums", e.DataOffset)
	}
	return ""
}

// finish checks the footer's own fields against its entries; footerOff is
// where the footer starts. It returns the entry of the finding (-1 for the
// footer as a whole) and the finding, "" when there is none.
func (c *footerCheck) finish(f *schema.Footer, n int, footerOff uint64) (int, string) {
	if c.bad != "" {
		return c.badEntry, c.bad
	}
	if f.TotalEvents != c.events {
		return -1, fmt.Sprintf("total_events is %d but its %d blocks hold %d events", f.TotalEvents, n, c.events)
	}
	if n > 0 && (f.MinCycle != c.minC || f.MaxCycle != c.maxC) {
		return -1, fmt.Sprintf("cycle range %d-%d disagrees with its blocks' %d-%d", f.MinCycle, f.MaxCycle, c.minC, c.maxC)
	}
	if footerOff < c.prevEnd {
		return -1, fmt.Sprintf("the footer overlaps the last block, which ends at byte %d", c.prevEnd)
	}
	return -1, ""
}
