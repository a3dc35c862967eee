//go:build cgo

package tracesql

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/schema"
)

// The spans table in parallel. Begin/end spans pair per unit and lane, and
// complete spans need no pairing, so each unit's span events, read in cycle
// order, make that unit's spans whatever the other units hold: a thread
// reads one unit at a time through the grouped event scan (the Parquet
// export's: a unit's blocks in cycle order, the ones that interleave
// merged), decoding its blocks itself, and pairs its events. Every DuckDB
// thread then has work; with one thread reading, DuckDB's other thread
// waits for it by spinning, which cost as much CPU as the scan itself.
//
// The spans still open when a unit's events end end where the trace's
// selection does, at the last event read in it (spans.go, closeAt), which
// is known only when every unit is read: each thread hands its open spans
// and the last cycle it read to the run, and the thread that finishes the
// last unit ends them all and writes them.
//
// Async spans pair per unit too: an end closes the span of its unit and id
// begun last, and the span orderer keeps the begins and ends of one unit and
// id in their order whatever else it holds back (spantree), so a thread
// pairs a unit's async spans by id alone (unitAsync). What needs every unit
// at once is the parent column: a parent id names a span of any unit, open
// when the child happens. So this holds when every block of every trace
// records exactly one unit (our writer's blocks) and the query does not
// read parent, or no trace has parents or async spans; otherwise the scan
// reads each trace in one ordered iteration on one thread (spans.go).

// spanRun is a parallel execution of the spans table.
type spanRun struct {
	ev    *eventRun     // grouped, one task per unit
	roles [][]*spanRole // by trace
	from  []uint64      // by trace: the window's first cycle
	cols  []Column
	proj  []int
	d     *DB

	units    int64        // tasks with blocks: the units the threads read
	finished atomic.Int64 // units read to their end
	mu       sync.Mutex   // guards the three below
	left     []spanRow    // spans open when their unit ended, not yet ended
	last     []uint64     // by trace: the last cycle read at or after from
	read     []bool       // by trace: an event was read at or after from
}

// spanCycleColumn is the one column the event scan under a span scan reads:
// a decoded column, so that no block is answered from its footer.
var spanCycleColumn = []Column{{Name: "cycle", Type: "UBIGINT"}}

// startParallel starts a parallel execution, or returns nil when a trace
// needs the serial scan.
func (s *spanScan) startParallel(cols []int) (execution, error) {
	d := s.d
	run := &spanRun{d: d, cols: s.cols, proj: cols, roles: make([][]*spanRole, len(d.traces)), from: make([]uint64, len(d.traces))}
	sels := make([]selection, len(d.traces))
	for ti, t := range d.traces {
		blocks := t.r.Blocks()
		if err := t.r.Err(); err != nil {
			return nil, err
		}
		for i := range blocks {
			if len(blocks[i].Units) != 1 {
				return nil, nil
			}
		}
		roles := spanRoles(t.r)
		for _, r := range roles {
			if r != nil && r.tree() && s.readsParent(cols) {
				return nil, nil
			}
		}
		run.roles[ti] = roles
		sel := s.sels[ti]
		switch {
		case len(roles) == 0:
			sels[ti] = selection{cycles: []cycleRange{}} // nothing to read
		case sel.cycles != nil && !sel.empty():
			// The lookback: the span events before the window are read
			// too, moving the open spans without making rows.
			h := sel.hull()
			sels[ti] = selection{cycles: []cycleRange{{0, h.hi}}, units: sel.units}
			run.from[ti] = h.lo
		default:
			sels[ti] = sel
		}
	}
	e := d.newEventTable(kindEvents, nil, spanCycleColumn, sels, true)
	x, err := e.start([]int{0})
	if err != nil {
		return nil, err
	}
	run.ev = x.(*eventRun)
	for _, tk := range run.ev.tasks {
		if len(tk.blocks) > 0 {
			run.units++
		}
	}
	run.last, run.read = make([]uint64, len(d.traces)), make([]bool, len(d.traces))
	d.spanTasks.Store(int64(len(run.ev.tasks)))
	return run, nil
}

// readsParent reports whether the query reads the parent column, the one
// a unit's events alone cannot give.
func (s *spanScan) readsParent(cols []int) bool {
	off := 0
	if s.d.multi {
		off = 1
	}
	for _, c := range cols {
		if c-off == spanParentColumn {
			return true
		}
	}
	return false
}

func (r *spanRun) threads() int { return r.ev.threads() }

func (r *spanRun) local() scanThread {
	return &spanThread{spanPairs: spanPairs{d: r.d, cols: r.cols, proj: r.proj}, run: r, th: r.ev.local().(*eventThread)}
}

// spanThread is one DuckDB thread's part of a spanRun: the event thread
// under it reads a unit's events in cycle order, this pairs them.
type spanThread struct {
	spanPairs
	run  *spanRun
	th   *eventThread
	task *task // the task th reads, to start afresh at the next
}

// unitAsync pairs the async spans of one unit by id, as the span orderer
// does (an end closes the span of its id begun last): one map lookup a
// begin and one an end, the open span kept by its id.
type unitAsync struct {
	top   map[uint64]openSpan   // id -> its open span begun last
	below map[uint64][]openSpan // id -> the spans of the id it was begun over (nested), oldest first
}

func (u *unitAsync) reset() {
	clear(u.top)
	clear(u.below)
}

func (u *unitAsync) begin(id uint64, o openSpan) {
	if u.top == nil {
		u.top = map[uint64]openSpan{}
	}
	if t, ok := u.top[id]; ok { // nested: the id is open already
		if u.below == nil {
			u.below = map[uint64][]openSpan{}
		}
		u.below[id] = append(u.below[id], t)
	}
	u.top[id] = o
}

// end returns the span the end of id closes, false when none is open.
func (u *unitAsync) end(id uint64) (openSpan, bool) {
	o, ok := u.top[id]
	if !ok {
		return o, false
	}
	if b := u.below[id]; len(b) > 0 {
		u.top[id] = b[len(b)-1]
		if len(b) == 1 {
			delete(u.below, id)
		} else {
			u.below[id] = b[:len(b)-1]
		}
	} else {
		delete(u.top, id)
	}
	return o, true
}

// each calls f with every open span.
func (u *unitAsync) each(f func(openSpan)) {
	for _, o := range u.top {
		f(o)
	}
	for _, b := range u.below {
		for _, o := range b {
			f(o)
		}
	}
}

func (st *spanThread) fill(out *chunk) error {
	th := st.th
	th.resume()
	defer th.pause()
	for len(st.pend) < vectorSize {
		if th.pos < len(th.idx) {
			st.pair()
			if st.err != nil {
				return st.err
			}
			continue
		}
		ok, err := th.nextRows()
		if err != nil {
			return err
		}
		if !ok {
			if st.task != nil {
				st.unitRead()
				st.task = nil
			}
			break
		}
		if th.task != st.task {
			// Another unit (perhaps of another trace).
			if st.task != nil {
				st.unitRead()
			}
			st.task, st.ti = th.task, th.trace
			st.roles, st.from = st.run.roles[th.trace], st.run.from[th.trace]
			st.open.reset()
			st.ua.reset()
			st.closed(st.nOpen)
		}
	}
	st.drain(out)
	return nil
}

// pair pairs the event thread's rows.
func (st *spanThread) pair() {
	th := st.th
	rs := &th.rows
	roles := st.roles
	for _, i := range th.idx[th.pos:] {
		rc := &rs.recs[i]
		st.saw(rc.Cycle)
		if int(rc.Fid) >= len(roles) || roles[rc.Fid] == nil {
			continue // not a span event
		}
		seq := uint64(rs.block)<<32 | uint64(i)
		if rs.block < 0 {
			seq = uint64(rs.seqs[i])
		}
		ev := spanEvent{rc.Cycle, rc.Fid, rc.Unit, rc.Argc, rs.data[rc.ArgOff : rc.ArgOff+uint32(rc.ArgLen)]}
		if sr := roles[rc.Fid]; sr.id >= 0 {
			st.async1(sr, &ev, seq)
			if st.err != nil {
				return
			}
			continue
		}
		st.event(&ev, seq, noTree)
	}
	th.pos = len(th.idx)
}

// async1 pairs an async begin or end of the unit read (spanPairs.event's
// work for them, without the span orderer's node numbers).
func (st *spanThread) async1(sr *spanRole, ev *spanEvent, seq uint64) {
	v := &st.view
	v.ResetFirst(sr.types, ev.args, int(ev.argc), sr.need)
	if !v.Has(sr.id) {
		return
	}
	id := v.Uint(sr.id)
	if sr.kind == schema.KindAsyncEnd {
		b, ok := st.ua.end(id)
		if !ok {
			return // its begin lies before the selection
		}
		st.closed(1)
		if ev.cycle < st.from {
			return // ended before the window
		}
		st.asyncRow(&b, ev.unit, ev.cycle)
		return
	}
	var lane, flow, pid uint64
	if v.Has(sr.lane) {
		lane = v.Uint(sr.lane)
	}
	if v.Has(sr.flow) {
		flow = v.Uint(sr.flow)
	}
	if v.Has(sr.parent) {
		pid = v.Uint(sr.parent)
	}
	st.opened(ev.cycle)
	st.ua.begin(id, openSpan{start: ev.cycle, flow: flow, has: flow != 0, role: sr, seq: seq, id: id, parent: -1, pid: pid, lane: lane, unit: ev.unit})
}

// unitRead hands the spans the unit leaves open, and the last cycle it
// read, to the run; the thread that reads the last unit ends every one of
// them where its trace's selection ends and writes them.
func (st *spanThread) unitRead() {
	r := st.run
	n := st.openRows()
	r.mu.Lock()
	r.left = append(r.left, st.pend[n:]...)
	if st.read {
		r.last[st.ti], r.read[st.ti] = max(r.last[st.ti], st.last), true
	}
	r.mu.Unlock()
	st.pend = st.pend[:n]
	st.last, st.read = 0, false
	if r.finished.Add(1) != r.units {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.left {
		ti := r.left[i].ti
		at := r.from[ti]
		if r.read[ti] {
			at = r.last[ti]
		}
		r.left[i].end = max(r.left[i].end, at)
	}
	slices.SortFunc(r.left, func(a, b spanRow) int { return cmp.Or(cmp.Compare(a.ti, b.ti), cmp.Compare(a.seq, b.seq)) })
	st.pend = append(st.pend, r.left...)
	r.left = nil
}

// close is called when DuckDB drops the thread's state.
func (st *spanThread) close() { st.th.close() }
