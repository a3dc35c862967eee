package rawread

import "github.com/chronon-sim/chronon-go/internal/tracefile"

// Records returns the records of the events Decode selected, in the order
// of Event(i), and the bytes their ArgOff and ArgLen point into: for a
// consumer that reads a column at a time without building events (SQL
// scans). Both are valid until Release.
func (b *Block) Records() ([]tracefile.Rec, []byte) { return b.d.Recs, b.d.Data }

// Index returns the block's index in r.Blocks.
func (b *Block) Index() int32 { return b.d.Block }
