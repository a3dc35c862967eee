package rewrite

import (
	"errors"
	"io"
	"slices"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Complete writes a complete trace holding what r found: the header, the
// schema section, every block (their bytes copied as they are, back to
// back) and a footer indexing them. It turns a recovered file (no footer,
// torn tail) into one that the original reader, the conformance oracle and
// mmapio read as complete. Unit sets are recorded as the events hold them;
// created, when not zero, becomes the footer's timestamp (a complete input
// keeps its own).
//
// Every block of a complete input is decoded before it is copied (a
// recovered input's blocks were when it was opened). A block that does not
// decode is an error naming it, unless r was opened mmapio.WithRepair: the
// block is then left out and listed in Result.Dropped, as are the damaged
// blocks the walk of a recovered input left out (Status.Damaged). A file that shrinks
// while it is copied is a *mmapio.FaultError.
func Complete(w io.Writer, r *mmapio.Reader, created time.Time) (res Result, err error) {
	n := &res.Bytes
	f := rawread.File(r)
	if !f.RLock() {
		return res, mmapio.ErrClosed
	}
	defer f.RUnlock() // the blocks are copied from the mapping
	defer f.Guard(&err, tracefile.PanicOnFault())
	var sec []byte
	flags := schema.FlagHasIndex
	schemaOff, schemaSize := f.SchemaSection()
	if schemaOff >= 0 {
		sec = f.Data()[schemaOff : schemaOff+schemaSize]
		flags |= schema.FlagHasSchema
	}
	compressed := f.Header().Flags&schema.FlagCompressed != 0
	all := f.BlocksLocked() // not Blocks: the read lock is held
	errs, units := checkBlocks(f, all)
	for _, e := range errs {
		// A fault is not a damaged block: the file shrank while it was
		// checked. Nothing else it says can be trusted (the block at the
		// cut may read as zeros, a "corrupt" one), and the copy would be
		// partial: the fault is the error, whatever the other blocks said.
		var fe *mmapio.FaultError
		if errors.As(e, &fe) {
			return res, e
		}
	}
	blocks := make([]tracefile.Block, 0, len(all))
	lost := map[uint16]uint64{}            // events of the blocks left out, by unit
	attributable := true                   // every block left out holds one unit
	for _, d := range f.Status().Damaged { // left out by the walk of a recovered input
		res.Dropped = append(res.Dropped, errors.New(f.Path()+": "+d))
	}
	for i, e := range errs {
		switch {
		case e == nil:
			b := all[i]
			b.Units = units[i] // what the events hold, not what a footer claims
			blocks = append(blocks, b)
		case f.Options().Repair:
			res.Dropped = append(res.Dropped, e)
			if u := all[i].Units; len(u) == 1 {
				lost[u[0]] += uint64(all[i].EventCount)
			} else {
				attributable = false
			}
		default:
			return res, e
		}
	}
	foot := &schema.Footer{Blocks: make([]schema.BlockIndex, len(blocks))}
	off := uint64(schema.HeaderSize + len(sec))
	first := off
	for i := range blocks {
		b := &blocks[i]
		compressed = compressed || !tracefile.IsRaw(b)
		foot.Blocks[i] = schema.BlockIndex{Index: uint32(i), EventCount: b.EventCount, MinCycle: b.MinCycle, MaxCycle: b.MaxCycle,
			UncompressedSize: b.UncompressedSize, CompressedSize: b.CompressedSize, DataOffset: off, Units: b.Units,
			CRC: schema.BlockCRC(f.Data()[tracefile.HeaderOff(b):tracefile.BlockEnd(b)])} // copied as it is: the same CRC
		foot.TotalEvents += uint64(b.EventCount)
		if i == 0 || b.MinCycle < foot.MinCycle {
			foot.MinCycle = b.MinCycle
		}
		foot.MaxCycle = max(foot.MaxCycle, b.MaxCycle)
		off += schema.BlockHeaderSize + uint64(b.CompressedSize)
	}
	if compressed {
		flags |= schema.FlagCompressed
	}
	if ts, ok := f.Created(); ok {
		foot.CreatedTimestamp = ts
		if attributable {
			foot.UnitStats = lessLost(f.UnitStats(), lost)
		} // else none: counts that the blocks contradict would be read as truth
	} else if !created.IsZero() {
		foot.CreatedTimestamp = uint64(created.Unix())
	}
	foot.HasCRC = true // the copy carries checksums whether or not its input did
	fb := schema.BuildFooter(flatbuffers.NewBuilder(1024), foot)
	h := schema.NewHeader(flags | schema.FlagChecksums)
	if sec != nil {
		h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(sec))
		h.SchemaCRC = schema.CRC32C(sec)
	}
	h.FirstBlockOffset = first
	h.FooterOffset, h.FooterSize = off, uint64(len(fb))

	write := func(b []byte) error {
		m, err := w.Write(b)
		*n += int64(m)
		return err
	}
	if err := write(schema.AppendHeader(nil, h)); err != nil {
		return res, err
	}
	bounce := make([]byte, min(rewriteBounce, len(f.Data())))
	if err := writeMapped(f, write, schemaOff, sec, "schema", bounce); err != nil {
		return res, err
	}
	for i := range blocks {
		b := &blocks[i]
		if err := writeMapped(f, write, tracefile.HeaderOff(b), f.Data()[tracefile.HeaderOff(b):tracefile.BlockEnd(b)], tracefile.BlockSection(int(b.Index)), bounce); err != nil {
			return res, err
		}
	}
	res.Blocks, res.Copied, res.Events = len(blocks), len(blocks), foot.TotalEvents
	return res, write(fb)
}

// rewriteBounce is the buffer the mapped sections are copied through.
const rewriteBounce = 1 << 20

// writeMapped writes p, the bytes of section at offset off of the mapping,
// through bounce. A write(2) straight from the mapping of a file that
// shrank fails with EFAULT, an error of the output that names neither the
// input nor what was read; a copy in user space faults instead (the caller
// panics on faults), which becomes a FaultError naming the input, the
// section and the byte. The copy costs little beside the write.
func writeMapped(f *tracefile.File, write func([]byte) error, off int64, p []byte, section string, bounce []byte) error {
	for len(p) > 0 {
		k, err := copyMapped(f, bounce, p, off, section)
		if err != nil {
			return err
		}
		if err := write(bounce[:k]); err != nil {
			return err
		}
		p, off = p[k:], off+int64(k)
	}
	return nil
}

// copyMapped copies the start of src (mapped bytes from offset off) into
// dst and returns how many; a fault is the input's error.
func copyMapped(f *tracefile.File, dst, src []byte, off int64, section string) (k int, err error) {
	defer func() {
		if v := recover(); v != nil {
			fe := f.Fault(v)
			if fe == nil {
				panic(v)
			}
			if fe.Offset < 0 {
				fe.Offset = off
			}
			fe.Section = section
			err = fe
		}
	}()
	return copy(dst, src), nil
}

// lessLost is the input's unit_stats for a copy without the blocks left
// out: a unit's events in them are no longer written but dropped (emitted
// stays written + dropped, and info shows them as dropped).
func lessLost(stats []schema.UnitStat, lost map[uint16]uint64) []schema.UnitStat {
	if len(lost) == 0 {
		return stats
	}
	out := slices.Clone(stats)
	for i := range out {
		n := min(lost[out[i].UnitID], out[i].Written)
		out[i].Written -= n
		out[i].Dropped += n
	}
	return out
}
