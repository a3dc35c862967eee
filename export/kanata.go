package export

import (
	"slices"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/decimal"
	"github.com/chronon-sim/chronon-go/internal/runs"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// The Kanata export (FormatKanata) writes the log Konata reads: one row per
// instruction with its pipeline stages. The mapping:
//
//   - An instruction is a flow id: the events whose flow argument has that
//     id (0 is no flow). Its I id is assigned in order of first appearance;
//     the I line's simulator id is the flow id, its thread id the index of
//     its run in a trace merged from several (runs.go; the order of the
//     files, of WithProcesses' labels), 0 for a single run. The same flow id
//     in two runs is two instructions, each in its own run's thread.
//   - A stage is a span on the instruction's flow (complete, or begin/end),
//     named after the span's format name, or when it has none the last
//     element of its unit's path. Lane 0 holds stages, lane 1 stalls: a
//     span whose name or category name contains "stall" (isStall). Stages
//     of one instruction on one lane do not overlap in Konata (an S closes
//     the lane's open stage), so a stage that begins while another is open
//     on its lane ends that one first, except a complete span within the
//     open complete stage: that one is interrupted and resumes when the
//     inner span ends (its S written at the end of that cycle, so that a
//     stage beginning in the same cycle replaces it). Async spans are not
//     stages.
//   - Labels: the text of the instruction's first event is its L type 0
//     label (the left pane: say a fetch with pc and opcode); the text of
//     each later event, "cycle unit: message", is appended to the type 1
//     label (mouse-over), separated by \n. Text is escaped as in dump: no
//     tab or newline reaches the log (a newline is \n, which Konata shows as
//     a newline).
//   - R: an instruction retires (R id rid 0, rid counting retirements) at
//     an event of a retire format (schema.KindRetire); in a trace without
//     any, at the end of its last stage, or when its last event is not a
//     stage, at that event. An event of a flush format (schema.KindFlush) ends its
//     instruction as flushed (R id rid 1) at its cycle, closing its open
//     stages; later events of a flushed flow are ignored. A flush of a
//     flow with no instruction in the export (its events outside the
//     selection, or none: a kill of a sequence number never fetched) makes
//     no row; Result counts it as FlushesIgnored. Instructions
//     still open at the end of the window are closed (stages ended, retired)
//     at its last cycle; in a trace with retire events they are not
//     retired (no R: Konata shows them in flight), Result.InFlight.
//   - W: an event of a format with a dependency argument
//     (schema.RoleDepends, chronon.WithDepends) writes "W consumer producer
//     0" at its cycle, the consumer its instruction, the producer the
//     instruction whose flow id the argument holds, when that one was
//     exported: in flight, or retired or flushed among the last
//     kRetiredIDs. A producer outside the selection (before a --cycles
//     window, another unit), the instruction itself or a flow never seen
//     gets no W (Konata needs the producer's I first); Result counts them
//     as DependenciesDropped.
//   - Events without a flow (counters, plain instants) are not shown.
//
// Output is one streaming pass in cycle order after a pre-pass
// (lastEvents: the blocks in any order, on every core) that counts each
// flow's events, so that the pass knows which event is an instruction's
// last; the pass takes the blocks the pre-pass decoded rather than
// decoding them again (within a share of the memory budget), with their
// flow events' text, which the pre-pass formats on every core (kPrep).
// During the pass a feeder goroutine reads the events (kanata_feed.go)
// and another writes the file (kanata_writer.go). Memory holds the
// instructions in flight and their pending stage ends, the pre-pass's
// counts (16 bytes per flow) and the blocks it kept with their text until
// the pass reaches them; the file is not split.

// kInst is an instruction in flight.
type kInst struct {
	id      uint64 // I id in the log
	flow    uint64
	run     uint16   // its run (the I line's thread id)
	idText  [20]byte // id in decimal: it starts every line of the instruction
	idLen   uint8
	open    [2]kOpen
	inner   [2][]kOpen // per lane, the stages an inner span interrupted, innermost last (resumed when it ends)
	left    uint64     // its flow's events not read yet (lastEvents)
	last    bool       // its flow's last event has been read
	done    bool       // R written: a flushed instruction whose flow has events to come
	details bool       // a type 1 label was written
}

// idb is the instruction's id in decimal.
func (in *kInst) idb() []byte { return in.idText[:in.idLen] }

// kOpen is the open stage of an instruction on a lane.
type kOpen struct {
	name   string
	serial uint64 // unique per stage begun, so a stale pending end is recognized
	begun  bool   // by a span begin: a span end closes it
	end    uint64 // a complete span's end cycle (0: a begun span's, unknown)
	held   bool   // resumed after an inner span, its S not written yet (step writes it)
}

// kResume is a stage resumed after an inner span ended, whose S waits for
// the end of the cycle: a stage that begins in the same cycle replaces it
// rather than cut it to nothing.
type kResume struct {
	in     *kInst
	lane   uint8
	serial uint64
}

// kEnd is the pending end of a complete span.
type kEnd struct {
	cycle, seq uint64
	inst       *kInst
	serial     uint64
	lane       uint8
}

// kRun is the instructions of one run, by flow id.
type kRun struct {
	insts   kInsts
	retired kRetired // I ids of the last instructions retired, for W lines
}

type kanataExport struct {
	r       *mmapio.Reader
	fmts    []*kFmt
	kw      *kanataWriter
	runs    []*kRun // by run index; made on first use but run 0
	live    int     // instructions in the tables of all runs
	free    []*kInst
	ends    kEnds
	seq     uint64
	serial  uint64
	nextID  uint64   // next I id
	rid     uint64   // next retire id
	units   []string // escaped unit names by id
	stages  []string // stage names of unnamed spans by unit id
	deps    bool     // some format has a dependency argument
	retires bool     // some event is a retirement: instructions retire only there
	resumes []kResume
	pidText []byte
	le      *lastEvents
	res     *Result

	liveState func(int64) // WithLiveState
	liveBase  int64       // bytes of the per-flow counts (lastEvents)
	liveLo    int         // x.live at or below which liveState is called again
	liveHi    int         // ... at or above which
}

// kInstBytes is what an instruction in flight takes: the kInst (200
// bytes, a 208-byte allocation), its share of the table's slots (2 to 16
// per instruction up to kMaxSlots), past those an entry of the overflow
// map (about 100 bytes with its growth), its place in the free list.
// Counting the kInst and two slots only (256 bytes) left the collector
// running half the time with 3M instructions in flight.
const kInstBytes = int64(unsafe.Sizeof(kInst{})) + 8 + 2*int64(unsafe.Sizeof(kSlot{})) + 8 + 128

// noteLive reports what the export keeps live (WithLiveState) when the
// instructions in flight left [liveLo, liveHi].
func (x *kanataExport) noteLive() {
	if x.liveState == nil || (x.live > x.liveLo && x.live < x.liveHi) {
		return
	}
	x.liveState(x.liveBase + int64(x.live)*kInstBytes)
	x.liveLo, x.liveHi = x.live-x.live/8-1, x.live+x.live/8+1024
}

// exportKanata writes the Kanata log of the events q selects to path.
// labels and runOf are r's runs (exportRuns).
func exportKanata(r *mmapio.Reader, q mmapio.Query, path string, o options, labels []string, runOf []uint16, res *Result) error {
	fmts := kanataFormats(r)
	units := kUnits{r, cacheUnits(r)}
	le, err := scanLastEvents(r, q, fmts, units, labels, runOf)
	if err != nil {
		return err
	}
	if err := needFlowsAndSpans(r.Path(), q, le); err != nil {
		le.release()
		return err
	}
	kw, err := newKanataWriter(path)
	if err != nil {
		le.release()
		return err
	}
	res.Files = []string{path}
	x := &kanataExport{r: r, fmts: fmts, kw: kw, le: le, res: res, units: units.names, liveState: o.liveState}
	if x.liveState != nil {
		x.liveBase = le.countBytes()
		x.liveLo, x.liveHi = -1, 0 // report at once
		x.noteLive()
		defer x.liveState(0)
	}
	x.runs = make([]*kRun, runs.Count(labels))
	x.runs[0] = &kRun{}
	// The schema lists every format registered, used or not: the events
	// tell whether the table of retired instructions is needed.
	x.deps = le.deps
	x.retires = le.retires
	err = x.run(q, le, runOf, cyclewin.NewReporter(r, q, o.progress))
	le.release() // the feeder is done: no batch refers to the records kept
	if cerr := kw.close(); err == nil {
		err = cerr
	}
	return err
}

func (x *kanataExport) run(q mmapio.Query, le *lastEvents, runOf []uint16, progress cyclewin.Reporter) error {
	fd := startFeed(x.r, q, x.fmts, kUnits{x.r, x.units}, le, runOf, progress)
	var lastCycle uint64
	var iterErr error
	for b := range fd.batches {
		x.res.Events += b.events
		for i := range b.recs {
			rec := &b.recs[i]
			text := b.text
			if rec.blk >= 0 {
				text = x.le.preps[rec.blk].text
			}
			if err := x.event(rec, text[rec.off:rec.end], int(rec.msg)); err != nil {
				fd.halt()
				return err
			}
		}
		if b.end {
			lastCycle, iterErr = b.lastCycle, b.err
		}
		fd.free <- b
	}
	if iterErr != nil {
		return iterErr
	}
	progress.Done()
	return x.finish(q, lastCycle)
}

// event handles one event of an instruction, text its detail ("cycle
// unit: message"), the message from byte msg on. Whether
// its flow has later events (more) is counted down from the pre-pass's
// count of the flow's events (lastEvents).
func (x *kanataExport) event(rec *kRec, text []byte, msg int) error {
	c, f, flow := rec.cycle, x.fmts[rec.fid], rec.flow
	if err := x.flushEnds(c); err != nil {
		return err
	}
	x.res.FlowEvents++
	in := x.inst(rec.run, flow)
	var more bool
	if in != nil {
		in.left--
		more = in.left != 0
	}
	if in != nil && in.done { // flushed already
		if !more {
			x.recycle(in)
		}
		return nil
	}
	if in == nil && f.kind == schema.KindFlush { // no instruction to flush: no row
		x.le.skip(rec.run, flow)
		x.res.FlushesIgnored++
		return nil
	}
	if err := x.step(c); err != nil {
		return err
	}
	if in == nil {
		in = x.newInst(rec.run, flow)
		in.left = x.le.take(rec.run, flow) - 1
		more = in.left != 0
		if err := x.kw.cmd('I', in.idb(), flow, uint64(rec.run)); err != nil {
			return err
		}
		x.kw.labelStart(in.idb(), 0)
		x.kw.buf = append(x.kw.buf, text[msg:]...)
		if err := x.kw.labelEnd(); err != nil {
			return err
		}
	} else if err := x.detail(in, text); err != nil {
		return err
	}
	if rec.hasDep {
		if err := x.depends(in, rec.producer); err != nil {
			return err
		}
	}
	switch f.kind {
	case schema.KindSpanBegin, schema.KindSpanComplete:
		name := f.name
		if name == "" {
			name = x.unitStage(rec.unit)
		}
		end := uint64(0)
		if f.kind == schema.KindSpanComplete {
			var ok bool
			if end, ok = schema.CompleteSpanEnd(c, rec.dur, f.types[f.dur]); !ok {
				// Left out (a stage that would never end): the event
				// stays one of the instruction's, as an instant would.
				x.res.impossibleSpan(x.unitName(rec.unit), name, c, rec.dur)
				break
			}
		}
		serial, err := x.begin(in, f.lane, name, c, end, f.kind == schema.KindSpanBegin)
		if err != nil {
			return err
		}
		x.res.Spans++
		if f.kind == schema.KindSpanComplete {
			x.seq++
			x.ends.push(kEnd{cycle: end, seq: x.seq, inst: in, serial: serial, lane: f.lane})
		}
	case schema.KindSpanEnd:
		// A span end closes the innermost open span on its lane: here the
		// lane's open stage, if a span begin opened it (a complete span's
		// stage ends by itself; one a later stage ended is gone).
		if !in.open[f.lane].begun {
			x.res.UnmatchedEnds++
		} else if err := x.close(in, f.lane, c); err != nil {
			return err
		}
	case schema.KindFlush:
		return x.retire(in, true, more)
	case schema.KindRetire:
		return x.retire(in, false, more)
	default:
		x.res.Instants++
	}
	if !more {
		in.last = true
		return x.maybeRetire(in)
	}
	return nil
}

// depends writes a W line for an event with a dependency argument: in
// depends on the instruction of its run whose flow id the argument holds,
// when that one was exported (in flight, or retired among the last kRetiredIDs);
// otherwise (outside the selection, or never seen) no line is written, as
// Konata needs the producer's I before the W.
func (x *kanataExport) depends(in *kInst, pflow uint64) error {
	if pflow == 0 {
		return nil
	}
	var pid []byte
	if p := x.inst(in.run, pflow); p != nil && p != in {
		pid = p.idb()
	} else if p == nil {
		if id, ok := x.runs[in.run].retired.get(pflow); ok {
			x.pidText = decimal.Append(x.pidText[:0], id)
			pid = x.pidText
		}
	}
	if pid == nil {
		x.res.DependenciesDropped++
		return nil
	}
	x.res.Dependencies++
	return x.kw.dep(in.idb(), pid)
}

// detail appends the event's detail to the instruction's type 1 label.
func (x *kanataExport) detail(in *kInst, text []byte) error {
	x.kw.labelStart(in.idb(), 1)
	if in.details {
		x.kw.buf = append(x.kw.buf, `\n`...)
	}
	in.details = true
	x.kw.buf = append(x.kw.buf, text...)
	return x.kw.labelEnd()
}

// begin starts a stage on a lane at cycle c (a complete span ending at
// end, or a begun one), ending the lane's open stage first. Konata draws
// one stage at a time per lane: a complete span within the open complete
// stage (an inner span: a cache access inside execute) interrupts that
// stage, which resumes when the inner span ends; any other new stage ends
// the open one.
func (x *kanataExport) begin(in *kInst, lane uint8, name string, c, end uint64, begun bool) (uint64, error) {
	if top := &in.open[lane]; top.serial != 0 {
		if !begun && !top.begun && c < top.end && end <= top.end {
			in.inner[lane] = append(in.inner[lane], *top)
		}
		if err := x.end(in, lane); err != nil {
			return 0, err
		}
	}
	x.serial++
	in.open[lane] = kOpen{name: name, serial: x.serial, begun: begun, end: end}
	return x.serial, x.kw.stage('S', in.idb(), lane, name)
}

// end writes the end of the lane's open stage (nothing for a resumed one
// whose S is still held: it never showed).
func (x *kanataExport) end(in *kInst, lane uint8) error {
	o := &in.open[lane]
	name, held := o.name, o.held
	*o = kOpen{}
	if held {
		return nil
	}
	return x.kw.stage('E', in.idb(), lane, name)
}

// step moves the log to cycle c, first writing the S of the stages resumed
// in the cycle that ends.
func (x *kanataExport) step(c uint64) error {
	if len(x.resumes) != 0 && c != x.kw.cycle {
		if err := x.resume(); err != nil {
			return err
		}
	}
	return x.kw.step(c)
}

// resume writes the S of the stages resumed in the current cycle.
func (x *kanataExport) resume() error {
	for _, r := range x.resumes {
		if o := &r.in.open[r.lane]; o.held && o.serial == r.serial {
			o.held = false
			if err := x.kw.stage('S', r.in.idb(), r.lane, o.name); err != nil {
				return err
			}
		}
	}
	x.resumes = x.resumes[:0]
	return nil
}

// close ends the lane's open stage at cycle c and resumes the stage it
// interrupted, if that one is still open.
func (x *kanataExport) close(in *kInst, lane uint8, c uint64) error {
	if err := x.end(in, lane); err != nil || len(in.inner[lane]) == 0 {
		return err
	}
	st := in.inner[lane]
	for len(st) > 0 {
		outer := st[len(st)-1]
		st = st[:len(st)-1]
		in.inner[lane] = st
		if outer.end > c {
			outer.held = true
			in.open[lane] = outer // the same serial: its pending end ends it
			x.resumes = append(x.resumes, kResume{in, lane, outer.serial})
			return nil
		}
	}
	return nil
}

// dropInner forgets the interrupted stage of a lane whose pending end has
// come while an inner span is still open; false when there is none.
func (in *kInst) dropInner(lane uint8, serial uint64) bool {
	st := in.inner[lane]
	for i := len(st) - 1; i >= 0; i-- {
		if st[i].serial == serial {
			in.inner[lane] = append(st[:i], st[i+1:]...)
			return true
		}
	}
	return false
}

// flushEnds writes the pending stage ends up to cycle c, and retires the
// instructions whose last stage that was.
func (x *kanataExport) flushEnds(c uint64) error {
	for {
		e := x.ends.peek(c)
		if e == nil {
			x.ends.done(c)
			return nil
		}
		in, lane, cycle := e.inst, e.lane, e.cycle
		stale := in.done || in.open[lane].serial != e.serial
		x.ends.pop()
		if stale {
			in.dropInner(lane, e.serial) // an interrupted stage that ended meanwhile
			continue                     // ended already (a later stage on its lane, a flush)
		}
		if err := x.step(cycle); err != nil {
			return err
		}
		if err := x.close(in, lane, cycle); err != nil {
			return err
		}
		if in.last {
			if err := x.maybeRetire(in); err != nil {
				return err
			}
		}
	}
}

// maybeRetire retires an instruction whose last event was read once no
// stage of it is open, unless the trace has retire events: then only
// those retire instructions, and one without stays in flight.
func (x *kanataExport) maybeRetire(in *kInst) error {
	if x.retires || !in.last || in.open[0].serial != 0 || in.open[1].serial != 0 {
		return nil
	}
	return x.retire(in, false, false)
}

// retire writes R for an instruction, ending its open stages first.
// A flushed instruction whose flow has more events stays in the table, done,
// so that they are recognized and ignored.
func (x *kanataExport) retire(in *kInst, flushed, more bool) error {
	if err := x.endStages(in); err != nil {
		return err
	}
	in.done = true
	if x.deps {
		x.runs[in.run].retired.put(in.flow, in.id)
	}
	rid, typ := x.rid, uint64(0)
	if flushed {
		typ = 1
		x.res.Flushed++
	} else {
		x.rid++
		x.res.Retired++
	}
	if err := x.kw.cmd('R', in.idb(), rid, typ); err != nil {
		return err
	}
	if more {
		return nil
	}
	// Pending ends may still point at it: their serial no longer matches.
	x.recycle(in)
	return nil
}

// finish writes the ends still pending within the window and closes the
// instructions still open at its last cycle, in I order.
func (x *kanataExport) finish(q mmapio.Query, lastCycle uint64) error {
	limit := ^uint64(0)
	_, end, windowed := q.Cycles()
	if windowed {
		limit = end
	}
	if err := x.flushEnds(limit); err != nil {
		return err
	}
	if x.live == 0 {
		return nil
	}
	closeAt := max(x.kw.cycle, lastCycle)
	if x.ends.len() > 0 { // ends past the window: the stages are open at its end
		closeAt = max(closeAt, limit)
	}
	open := make([]*kInst, 0, x.live)
	for _, rn := range x.runs {
		if rn == nil {
			continue
		}
		rn.insts.each(func(in *kInst) {
			if !in.done {
				open = append(open, in)
			}
		})
	}
	slices.SortFunc(open, func(a, b *kInst) int { return int64cmp(a.id, b.id) })
	if len(open) > 0 {
		if err := x.step(closeAt); err != nil {
			return err
		}
	}
	for _, in := range open {
		for lane := range in.open {
			if in.open[lane].serial != 0 {
				x.res.UnterminatedSpans++
			}
		}
		in.last = true
		if x.retires {
			// Not retired: its stages end, and without an R Konata shows
			// it in flight to the end of the log.
			if err := x.endStages(in); err != nil {
				return err
			}
			x.res.InFlight++
			x.recycle(in)
			continue
		}
		if err := x.retire(in, false, false); err != nil {
			return err
		}
	}
	return nil
}

// endStages ends an instruction's open stages (and forgets those an inner
// span interrupted).
func (x *kanataExport) endStages(in *kInst) error {
	for lane := range in.open {
		in.inner[lane] = in.inner[lane][:0]
		if in.open[lane].serial != 0 {
			if err := x.end(in, uint8(lane)); err != nil {
				return err
			}
		}
	}
	return nil
}

func int64cmp(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (x *kanataExport) newInst(run uint16, flow uint64) *kInst {
	var in *kInst
	if n := len(x.free); n > 0 {
		in, x.free = x.free[n-1], x.free[:n-1]
		*in = kInst{}
	} else {
		in = &kInst{}
	}
	in.id, in.flow, in.run = x.nextID, flow, run
	in.idLen = uint8(len(decimal.Append(in.idText[:0], in.id)))
	x.nextID++
	rn := x.runs[run]
	if rn == nil {
		rn = &kRun{}
		x.runs[run] = rn
	}
	rn.insts.put(in)
	x.live++
	x.noteLive()
	x.res.Instructions++
	return in
}

// inst is the instruction in flight of a run with a flow id, or nil.
func (x *kanataExport) inst(run uint16, flow uint64) *kInst {
	rn := x.runs[run]
	if rn == nil {
		return nil
	}
	return rn.insts.get(flow)
}

// recycle drops an instruction from the table for reuse.
func (x *kanataExport) recycle(in *kInst) {
	x.runs[in.run].insts.del(in)
	x.live--
	x.noteLive()
	x.free = append(x.free, in)
}

// unitName is the escaped name of a unit, cached.
func (x *kanataExport) unitName(id uint16) string { return kUnits{x.r, x.units}.name(id) }

// kUnits is the escaped unit names by id (cacheUnits): read-only once
// made, shared by the feeder and the export's goroutine.
type kUnits struct {
	r     *mmapio.Reader
	names []string
}

func (u kUnits) name(id uint16) string {
	if int(id) < len(u.names) && u.names[id] != "" {
		return u.names[id]
	}
	return tracetext.EscapeText(u.r.UnitName(id))
}

// unitStage is the stage name of an unnamed span on a unit, cached.
func (x *kanataExport) unitStage(id uint16) string {
	for int(id) >= len(x.stages) {
		x.stages = append(x.stages, "")
	}
	if x.stages[id] == "" {
		x.stages[id] = unitStage(x.unitName(id))
	}
	return x.stages[id]
}

// cacheUnits returns r's escaped unit names by id.
func cacheUnits(r *mmapio.Reader) []string {
	units := make([]string, 0, 16)
	for _, u := range r.Units() {
		for int(u.ID) >= len(units) {
			units = append(units, "")
		}
		if units[u.ID] == "" {
			units[u.ID] = tracetext.EscapeText(u.Name)
		}
	}
	return units
}
