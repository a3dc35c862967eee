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

// appendBlock puts r's block in the file, after the schema that names
// every unit and format registered before it (any the block uses).
func (t *Tracer) appendBlock(r *result) bool {
	if g := t.schemaGen(); !t.fw.schemaCurrent(g) {
		t.fw.writeSchema(t.schemaSnapshot(), g)
	}
	ok := t.fw.writeBlock(r.out, blockRec{minCycle: r.minCycle, maxCycle: r.maxCycle, events: r.events, usize: r.usize, unit: r.unit.id})
	t.fileBytes.Store(t.fw.size())
	return ok
}

// finishFile completes the file once every block is written.
func (t *Tracer) finishFile() {
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
