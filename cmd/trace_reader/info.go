package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// info prints what the original printed, line for line (a recovered file
// shows the blocks recovery found), then what this reader adds: the file's
// status, the writer, the block layout and the run metadata; with -v the
// formats and units as the original listed them, then per-unit counts.
func info(c *config, out io.Writer) error {
	r, err := openTrace(c, c.file)
	if err != nil {
		return err
	}
	defer r.Close()
	w := bufio.NewWriterSize(out, 64<<10)
	h := r.Header()
	s := r.Schema()
	blocks := r.Blocks()
	if err := r.Err(); err != nil { // Blocks faulted: the file shrank since Open
		return err
	}
	st := summarize(r)

	fmt.Fprintf(w, "Trace File Information\n")
	fmt.Fprintf(w, "======================\n")
	fmt.Fprintf(w, "File: %s\n", c.file)
	if c.label != "" { // one of several files: its units' prefix in the timeline
		fmt.Fprintf(w, "Label: %s\n", esc(c.label))
	}
	fmt.Fprintf(w, "Version: %d.%d\n", h.VersionMajor, h.VersionMinor)
	fmt.Fprintf(w, "Simulation: %s\n", esc(s.SimulationName))
	fmt.Fprintf(w, "\nStatistics:\n")
	fmt.Fprintf(w, "  Total events: %d\n", st.total)
	fmt.Fprintf(w, "  Cycle range: %d - %d\n", st.minCycle, st.maxCycle)
	fmt.Fprintf(w, "  Duration: %d cycles\n", st.maxCycle-st.minCycle)
	fmt.Fprintf(w, "\nSchema:\n")
	fmt.Fprintf(w, "  Format entries: %d\n", len(s.Formats))
	fmt.Fprintf(w, "  Unit entries: %d\n", len(s.Units))
	fmt.Fprintf(w, "  Blocks: %d\n", len(blocks))
	fmt.Fprintf(w, "\nCompression:\n")
	if h.Flags&schema.FlagCompressed != 0 {
		fmt.Fprintf(w, "  Enabled: yes\n")
		fmt.Fprintf(w, "  Average ratio: %s%%\n", ratio(st.compressed, st.uncompressed))
	} else {
		fmt.Fprintf(w, "  Enabled: no\n")
	}
	if f := r.Footer(); f != nil && f.CreatedTimestamp > 0 {
		fmt.Fprintf(w, "\nCreated: %s\n", ctime(f.CreatedTimestamp))
	}
	if c.verbose {
		fmt.Fprintf(w, "\nRegistered Formats:\n")
		for _, f := range s.Formats {
			fmt.Fprintf(w, "  [%d] %s", f.ID, esc(f.Format))
			if f.File != "" {
				fmt.Fprintf(w, " (%s:%d)", esc(f.File), f.Line)
			}
			fmt.Fprintf(w, "\n")
		}
		fmt.Fprintf(w, "\nRegistered Units:\n")
		for _, u := range s.Units {
			fmt.Fprintf(w, "  [%d] %s", u.ID, esc(u.Name))
			if u.TypeName != "" {
				fmt.Fprintf(w, " (%s)", esc(u.TypeName))
			}
			fmt.Fprintf(w, "\n")
		}
	}

	// Beyond the original.
	fmt.Fprintf(w, "\nFile Status:\n")
	fmt.Fprintf(w, "  Status: %s\n", r.Status())
	fmt.Fprintf(w, "  Size: %d bytes\n", r.Size())
	fmt.Fprintf(w, "  Checksums: %s\n", checksumsLine(r))
	if s.Writer != "" {
		fmt.Fprintf(w, "  Writer: %s\n", esc(s.Writer))
	}
	var emitted, dropped uint64
	for _, u := range r.UnitStats() {
		emitted, dropped = emitted+u.Emitted, dropped+u.Dropped
	}
	if dropped > 0 { // the counts above are what the file holds, not the run
		fmt.Fprintf(w, "  Dropped by the writer: %d of %d events emitted (per unit: info -v)\n", dropped, emitted)
	}
	fmt.Fprintf(w, "\nBlock Layout:\n")
	fmt.Fprintf(w, "  Blocks: %d (%d zstd, %d raw)\n", len(blocks), st.zstdBlocks, len(blocks)-st.zstdBlocks)
	if len(blocks) > 0 {
		fmt.Fprintf(w, "  Events per block: min %d, mean %s, max %d\n", st.minEvents, mean(st.total, len(blocks)), st.maxEvents)
		fmt.Fprintf(w, "  Uncompressed bytes per block: min %d, mean %s, max %d\n", st.minSize, mean(st.uncompressed, len(blocks)), st.maxSize)
		fmt.Fprintf(w, "  Bytes on disk: %d in blocks (%s%% of %d uncompressed)\n", st.compressed+uint64(len(blocks))*schema.BlockHeaderSize, ratio(st.compressed, st.uncompressed), st.uncompressed)
		switch {
		case !r.HasUnitSets():
			fmt.Fprintf(w, "  Unit sets: not recorded (a unit query decodes every block)\n")
		case r.Footer() == nil:
			fmt.Fprintf(w, "  Unit sets: found while verifying the recovered blocks\n")
		case st.oneUnit:
			fmt.Fprintf(w, "  Unit sets: recorded, one unit per block\n")
		default:
			fmt.Fprintf(w, "  Unit sets: recorded\n")
		}
		if st.overlapping {
			fmt.Fprintf(w, "  Block cycle ranges overlap: events are merged by cycle on read\n")
		} else {
			fmt.Fprintf(w, "  Block cycle ranges are in file order: events read back in file order\n")
		}
	}
	timeAndStrings(w, s, c.verbose, c.allStrings)
	if md := r.Metadata(); len(md) > 0 {
		fmt.Fprintf(w, "\nMetadata:\n")
		for _, kv := range md {
			v := kv.Value
			label, isSel := selectionLabel(kv.Key)
			if isSel {
				v = openEnded(v)
			}
			fmt.Fprintf(w, "  %s: %s\n", esc(kv.Key), esc(v))
			if isSel {
				selectionKept(w, kv.Value, label, readerNames(r))
			}
		}
	}
	if c.verbose {
		categories(w, s.Categories)
		if err := unitCounts(w, r); err != nil {
			w.Flush()
			return err
		}
	}
	return w.Flush()
}

// timeAndStrings prints how long a cycle lasts (the file's time base and
// the units on a clock of their own, listed with verbose) and how many
// interned strings the symbol table holds (the first listed with
// verbose, all with all): what the exporters, stats and
// SQL convert cycles and Symbol arguments with.
func timeAndStrings(w io.Writer, s *schema.Schema, verbose, all bool) {
	fmt.Fprintf(w, "\nTime and Strings:\n")
	if s.TimeBase.IsZero() {
		fmt.Fprintf(w, "  Time base: none (cycles only)\n")
	} else {
		fmt.Fprintf(w, "  Time base: %s per cycle\n", s.TimeBase)
	}
	var own []schema.Unit
	for _, u := range s.Units {
		if !u.TimeBase.IsZero() {
			own = append(own, u)
		}
	}
	switch {
	case len(own) > 0 && verbose:
		fmt.Fprintf(w, "  Units on a clock of their own: %d\n", len(own))
		for _, u := range own {
			fmt.Fprintf(w, "    [%d] %s: %s per cycle\n", u.ID, esc(u.Name), u.TimeBase)
		}
	case len(own) > 0:
		fmt.Fprintf(w, "  Units on a clock of their own: %d (info -v lists them)\n", len(own))
	}
	fmt.Fprintf(w, "  Interned strings: %d\n", len(s.Symbols))
	if verbose || all {
		for id, str := range s.Symbols[:symbolsListed(len(s.Symbols), all)] {
			fmt.Fprintf(w, "    [%d] %s\n", id, esc(str))
		}
		if more := len(s.Symbols) - symbolsListed(len(s.Symbols), all); more > 0 {
			fmt.Fprintf(w, "    ... and %d more (info --strings lists them all)\n", more)
		}
	}
}

// symbolsListed is how many of n interned strings info lists: all, or
// the first listedSymbols.
func symbolsListed(n int, all bool) int {
	if all {
		return n
	}
	return min(n, listedSymbols)
}

// listedSymbols is how many interned strings info -v lists (a symbol table
// may hold 65,536): the first, by id, which the first events interned.
const listedSymbols = 20

// categories lists the schema's categories (name, mask, description): what
// a unit's enable mask turns on and off. Formats registered without a
// category are in CategoryDefault (mask 0x1).
func categories(w io.Writer, cats []schema.Category) {
	fmt.Fprintf(w, "\nCategories:\n")
	if len(cats) == 0 {
		fmt.Fprintf(w, "  (none registered)\n")
		return
	}
	for _, c := range cats {
		fmt.Fprintf(w, "  0x%x %s", c.Mask, esc(c.Name))
		if c.Description != "" {
			fmt.Fprintf(w, ": %s", esc(c.Description))
		}
		fmt.Fprintf(w, "\n")
	}
}

// unitCounts prints per-unit counts: the writer's (emitted, written,
// dropped) when it recorded them, otherwise events counted by reading the
// whole file.
func unitCounts(w io.Writer, r *mmapio.Reader) error {
	fmt.Fprintf(w, "\nUnit Statistics:\n")
	if stats := r.UnitStats(); stats != nil {
		for _, u := range stats {
			fmt.Fprintf(w, "  [%d] %s: %d events, %d emitted, %d dropped\n", u.UnitID, esc(r.UnitName(u.UnitID)), u.Written, u.Emitted, u.Dropped)
		}
		return nil
	}
	counts := map[uint16]uint64{}
	for ev := range r.Events(mmapio.Query{}) {
		counts[ev.UnitID]++
	}
	if err := r.Err(); err != nil {
		return err
	}
	fmt.Fprintf(w, "  (counted from the events; the writer recorded no drops)\n")
	seen := map[uint16]bool{}
	for _, u := range r.Units() {
		if seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		fmt.Fprintf(w, "  [%d] %s: %d events\n", u.ID, esc(r.UnitName(u.ID)), counts[u.ID])
	}
	for id := 0; id < 1<<16; id++ {
		if n := counts[uint16(id)]; n > 0 && !seen[uint16(id)] {
			fmt.Fprintf(w, "  [%d] (not in the schema): %d events\n", id, n)
		}
	}
	return nil
}

type summary struct {
	total, compressed, uncompressed uint64
	minCycle, maxCycle              uint64
	minEvents, maxEvents            uint32
	minSize, maxSize                uint32
	zstdBlocks                      int
	oneUnit, overlapping            bool
}

// summarize computes the statistics info prints: the footer's for a
// complete file (as the original), the recovered blocks' otherwise.
func summarize(r *mmapio.Reader) summary {
	var st summary
	blocks := r.Blocks()
	st.oneUnit = len(blocks) > 0
	var prevMax uint64
	for i := range blocks {
		b := &blocks[i]
		st.compressed += uint64(b.CompressedSize)
		st.uncompressed += uint64(b.UncompressedSize)
		if b.CompressedSize != b.UncompressedSize {
			st.zstdBlocks++
		}
		if i == 0 {
			st.minEvents, st.maxEvents, st.minSize, st.maxSize = b.EventCount, b.EventCount, b.UncompressedSize, b.UncompressedSize
		}
		st.minEvents, st.maxEvents = min(st.minEvents, b.EventCount), max(st.maxEvents, b.EventCount)
		st.minSize, st.maxSize = min(st.minSize, b.UncompressedSize), max(st.maxSize, b.UncompressedSize)
		if len(b.Units) != 1 {
			st.oneUnit = false
		}
		if i > 0 && b.MinCycle < prevMax {
			st.overlapping = true
		}
		prevMax = max(prevMax, b.MaxCycle)
	}
	if f := r.Footer(); f != nil {
		st.total, st.minCycle, st.maxCycle = f.TotalEvents, f.MinCycle, f.MaxCycle
		return st
	}
	for i := range blocks {
		b := &blocks[i]
		st.total += uint64(b.EventCount)
		if i == 0 {
			st.minCycle, st.maxCycle = b.MinCycle, b.MaxCycle
		}
		st.minCycle, st.maxCycle = min(st.minCycle, b.MinCycle), max(st.maxCycle, b.MaxCycle)
	}
	return st
}

// esc escapes control characters in text from the file (a forged line, a
// terminal escape sequence): tracetext.EscapeText.
func esc(s string) string { return tracetext.EscapeText(s) }

// ratio prints 100*compressed/uncompressed with two decimals, as the
// original's printf("%.2f") of a double (0/0 is NaN there; x86 prints it
// "-nan").
func ratio(compressed, uncompressed uint64) string {
	if uncompressed == 0 {
		return "-nan"
	}
	return strconv.FormatFloat(100*float64(compressed)/float64(uncompressed), 'f', 2, 64)
}

func mean(sum uint64, n int) string {
	return strconv.FormatFloat(float64(sum)/float64(n), 'f', 1, 64)
}

// ctime formats a Unix time as std::ctime does, without its newline:
// "Www Mmm dd hh:mm:ss yyyy" in local time, the day padded with a space.
func ctime(sec uint64) string {
	return time.Unix(int64(sec), 0).Local().Format("Mon Jan _2 15:04:05 2006")
}
