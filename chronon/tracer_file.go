package chronon

import "github.com/chronon-sim/chronon-go/schema"

// What the tracer hands its fileWriter: the writer knows only its file, so
// the tracer decides when the schema changed, snapshots it, and collects the
// unit statistics for the footer. All of it runs on the writer goroutine.

// schemaGen is the generation of everything the schema holds: it changes
// with every format, category or unit registered.
func (t *Tracer) schemaGen() uint64 { return registry.gen.Load() + t.gen.Load() }

// schemaSnapshot returns everything registered so far. Read schemaGen
// before it: a registration racing with the snapshot then shows up as a
// newer generation, and the next block rewrites the schema again.
func (t *Tracer) schemaSnapshot() *schema.Schema {
	s := &schema.Schema{
		Version:        1,
		Categories:     categoriesSnapshot(),
		SimulationName: t.cfg.simulationName,
		ConfigHash:     t.cfg.configHash,
		Metadata:       t.metadata,
		Writer:         writerName,
		TimeBase:       t.cfg.timeBase,
		Symbols:        t.syms.snapshot(),
	}
	for _, f := range formatsSnapshot() {
		s.Formats = append(s.Formats, f.info)
	}
	t.timeMu.Lock()
	for _, u := range t.unitList() {
		s.Units = append(s.Units, schema.Unit{ID: u.id, Name: u.name, TypeName: u.typeName, TimeBase: t.unitTimes[u.id]})
	}
	t.timeMu.Unlock()
	return s
}

// queueBlock queues r's block for the file, after the schema that names
// every unit and format registered before it (any the block uses); the
// blocks queued before a schema rewrite are written before it. The block
// is accounted for as written or lost when its batch is written
// (flushBlocks), which happens once maxBatchBlocks or maxBatchBytes are
// queued, when no block has come for batchDelay, at a Flush or Sync, and
// at Close.
func (t *Tracer) queueBlock(r *result) bool {
	schemaWritten := false
	if g := t.schemaGen(); !t.fw.schemaCurrent(g) {
		t.flushBlocks()
		t.fw.writeSchema(t.schemaSnapshot(), g)
		schemaWritten = true
	}
	if !t.fw.queueBlock(r.out, blockRec{minCycle: r.minCycle, maxCycle: r.maxCycle, events: r.events, usize: r.usize, unit: r.unit.id}) {
		return false
	}
	t.pend = append(t.pend, r)
	// The block after a schema (re)write goes out at once, as the file's
	// first block must: a header pointing past the end of the file is what
	// a reader of a live file would otherwise see for a while.
	if n, b := t.fw.pending(); schemaWritten || n >= maxBatchBlocks || b >= maxBatchBytes {
		t.flushBlocks()
	}
	return true
}

// flushBlocks writes the queued blocks and accounts for their events.
func (t *Tracer) flushBlocks() {
	if len(t.pend) == 0 {
		return
	}
	ok := t.fw.flushBlocks()
	for i, r := range t.pend {
		u := r.unit
		if ok {
			u.written.Add(uint64(r.events))
			t.nBlocks.Add(1)
			t.rawBytes.Add(uint64(r.usize))
			t.compBytes.Add(uint64(len(r.out) - schema.BlockHeaderSize))
		} else {
			u.lost.Add(uint64(r.events))
		}
		t.recycle(r)
		t.pend[i] = nil
	}
	t.pend = t.pend[:0]
	t.fileBytes.Store(t.fw.size())
}

// finishFile completes the file once every block is written.
func (t *Tracer) finishFile() {
	t.flushBlocks()
	g := t.schemaGen()
	var s *schema.Schema
	if !t.fw.schemaCurrent(g) {
		s = t.schemaSnapshot()
	}
	var stats []schema.UnitStat
	for _, u := range t.unitList() {
		dropped := u.ring.hdr.dropped.Load() + u.lost.Load()
		written := u.written.Load()
		stats = append(stats, schema.UnitStat{UnitID: u.id, Emitted: written + dropped, Written: written, Dropped: dropped})
	}
	t.fw.finish(s, g, stats)
	t.fileBytes.Store(t.fw.size())
}
