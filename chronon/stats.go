package chronon

// UnitStats is what happened to one unit's events so far.
//
// Emitted counts the emits that passed the unit's category mask and the
// record-time cycle window (WithSelect / CHRONON_TRACE cycles=; a unit
// units= leaves out has a mask of 0), including those made after Close
// (counted as Dropped too). Emits the mask or the window filtered out are
// counted nowhere. An emit is counted once it has left the producer's
// current chunk: events still in a partly filled chunk are counted once it
// is sealed (when it fills, at a flush, or at Close). After Close,
// Emitted == Written + Dropped + Lost exactly.
type UnitStats struct {
	ID      uint16
	Name    string
	Emitted uint64
	Written uint64 // in blocks written to the file
	Dropped uint64 // discarded by the Drop policy, or emitted after Close
	Lost    uint64 // discarded because the file could not be written
	Waits   uint64 // times the producer waited for room (Block policy)
	// Rejected counts the calls that recorded nothing because their event
	// was impossible: complete spans ending before they begin
	// (Span.Complete, Span.Between, Stages.Leave; ErrImpossibleSpan). They
	// are not in Emitted.
	Rejected uint64
}

// Stats is a snapshot of a tracer's counters.
type Stats struct {
	Units           []UnitStats
	Blocks          uint64 // blocks written
	RawBytes        uint64 // uncompressed bytes of the written blocks
	CompressedBytes uint64 // their bytes in the file, without block headers
	FileBytes       int64  // bytes appended to the file so far
	// Symbols interned (Intern), and the strings Intern could not add
	// because the table was full or the string too long (they got
	// SymbolOverflow).
	Symbols, SymbolsOverflowed uint64
}

// Stats returns the tracer's counters. Safe from any goroutine, at any time.
func (t *Tracer) Stats() Stats {
	var s Stats
	for _, u := range t.unitList() {
		dropped, written, lost := u.ring.hdr.dropped.Load(), u.written.Load(), u.lost.Load()
		sealed := u.sealed.Load()
		s.Units = append(s.Units, UnitStats{
			ID: u.id, Name: u.name,
			Emitted: sealed + dropped,
			Written: written, Dropped: dropped, Lost: lost,
			Waits: u.ring.hdr.waits.Load(), Rejected: u.rejectedSpans.Load(),
		})
	}
	s.Blocks = t.nBlocks.Load()
	s.RawBytes = t.rawBytes.Load()
	s.CompressedBytes = t.compBytes.Load()
	s.FileBytes = t.fileBytes.Load()
	s.Symbols = uint64(len(t.syms.snapshot()))
	s.SymbolsOverflowed = t.syms.over.Load()
	return s
}
