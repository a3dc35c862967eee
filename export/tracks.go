package export

import (
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/schema"
)

// track is one timeline row of the output: the root, a group of units
// (core0), a unit (core0.fetch), a lane of a unit, an extra row of a lane
// for spans that would not nest, or a counter.
type track struct {
	uuid    uint64
	parent  *track
	name    string
	rank    int32  // position among its siblings
	counter bool   // a counter track
	gen     uint32 // output file in which it was last declared (0: never)
	tid     int    // chrome-json thread id
	pid     int    // chrome-json process id; a track with pid > 1 and no parent is a process
	unit    uint16 // the unit it belongs to (0: the root, a group): its clock
	row     int    // the index of an async row among its unit's, from 0; -1 for other tracks

	children int // for ranks of lazily added children

	// Span state, for tracks that carry slices.
	open []openSpan // slices begun and not yet ended, innermost last
}

// openSpan is a slice that has begun on a track.
type openSpan struct {
	f    *fmtInfo
	flow uint64
	end  uint64 // end cycle of a complete span; 0 for a begin/end span
	row  *track // the track it is drawn on
	node int64  // an async span's node (spantree), -1 for others
}

type laneKey struct {
	unit uint16
	lane uint64
	none bool // spans without a lane argument
}

type counterKey struct {
	unit uint16
	id   uint32
}

// trackSet assigns tracks, creating them on first use.
type trackSet struct {
	root     *track
	nextUUID uint64
	groups   map[string]*track
	units    []*track // by unit id
	lanes    map[laneKey]*lane
	counters map[counterKey]*track
	names    map[uint16]string
	all      []*track
	procs    map[string]*track // WithProcesses: label -> its process track (nil until first used)
	async    map[uint16]*asyncRows
}

// setProcesses makes each label a process for the units named "label/...".
func (ts *trackSet) setProcesses(labels []string) {
	if len(labels) == 0 {
		return
	}
	ts.procs = map[string]*track{}
	for _, l := range labels {
		ts.procs[l] = nil
	}
}

// process returns the process track of a labelled unit name and the name
// without its label, or nil.
func (ts *trackSet) process(name string) (*track, string) {
	label, rest, ok := strings.Cut(name, "/")
	if !ok || ts.procs == nil {
		return nil, name
	}
	p, known := ts.procs[label]
	if !known {
		return nil, name
	}
	if p == nil {
		p = ts.add(nil, label)
		p.pid = 1 + len(ts.all) // distinct from the simulation's pid 1
		ts.procs[label] = p
	}
	return p, rest
}

// lane is a lane of a unit: its track (rows[0]) and the extra rows that
// complete spans overflow into, and the track of its begin/end spans.
type lane struct {
	unit     *track // the unit's track: parent of the lane's extra rows
	rows     []*track
	explicit *track
	baseUse  uint8 // which kind of span claimed rows[0] first
}

const (
	useNone uint8 = iota
	useExplicit
	useComplete
)

func newTrackSet(sim string, units []schema.Unit) *trackSet {
	if sim == "" {
		sim = "trace"
	}
	ts := &trackSet{
		nextUUID: 1,
		groups:   map[string]*track{},
		units:    make([]*track, 1<<16),
		lanes:    map[laneKey]*lane{},
		counters: map[counterKey]*track{},
		names:    map[uint16]string{},
	}
	for _, u := range units {
		ts.names[u.ID] = u.Name // a later entry with the same id wins, as in the original reader
	}
	ts.root = ts.add(nil, sim)
	return ts
}

func (ts *trackSet) add(parent *track, name string) *track {
	t := &track{uuid: ts.nextUUID, parent: parent, name: name, tid: len(ts.all) + 1, pid: 1, row: -1}
	ts.nextUUID++
	if parent != nil {
		t.rank = int32(parent.children)
		t.pid = parent.pid
		t.unit = parent.unit
		parent.children++
	}
	ts.all = append(ts.all, t)
	return t
}

// unit returns the track of a unit, creating its group tracks on the way:
// core1.l2.bank0 lives under core1.l2 under core1. A unit whose name is also
// a prefix of others (core0.l2 and core0.l2.bank0) is one track that is both.
// Units without a name get "unit N".
func (ts *trackSet) unit(id uint16) *track {
	if t := ts.units[id]; t != nil {
		return t
	}
	name := ts.names[id]
	if name == "" {
		name = "unit " + strconv.Itoa(int(id))
	}
	if g := ts.groups[name]; g != nil {
		g.unit = id
		ts.units[id] = g
		return g
	}
	parent, path := ts.process(name)    // a merged run's unit: under its process
	group := name[:len(name)-len(path)] // "label/" or ""
	if parent == nil {
		parent = ts.root
	}
	parts := strings.Split(path, ".")
	for i := 1; i < len(parts); i++ {
		prefix := group + strings.Join(parts[:i], ".")
		g := ts.groups[prefix]
		if g == nil {
			g = ts.add(parent, parts[i-1])
			ts.groups[prefix] = g
		}
		parent = g
	}
	t := ts.add(parent, parts[len(parts)-1])
	t.unit = id
	ts.groups[name] = t
	ts.units[id] = t
	return t
}

// asyncRows are the rows of a unit's async spans: tracks under the unit's
// track, "async 1", "async 2"..., one span open on each at a time. A span
// takes the free row of the lowest number, so a unit gets as many rows as
// it had spans open at once.
type asyncRows struct {
	rows []*track
	free []int // min-heap of the numbers of the rows without a span
}

// asyncRow returns the row a span that begins on unit takes.
func (ts *trackSet) asyncRow(unit uint16) *track {
	a := ts.async[unit]
	if a == nil {
		if ts.async == nil {
			ts.async = map[uint16]*asyncRows{}
		}
		a = &asyncRows{}
		ts.async[unit] = a
	}
	if len(a.free) == 0 {
		t := ts.add(ts.unit(unit), "async "+strconv.Itoa(len(a.rows)+1))
		t.row = len(a.rows)
		a.rows = append(a.rows, t)
		return t
	}
	return a.rows[heapPop(&a.free)]
}

// freeRow gives a row whose span ended back to its unit.
func (ts *trackSet) freeRow(t *track) {
	heapPush(&ts.async[t.unit].free, t.row)
}

func heapPush(h *[]int, v int) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func heapPop(h *[]int) int {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l] < a[m] {
			m = l
		}
		if r := l + 1; r < n && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// lane returns a unit's lane, creating its track: "lane 3" under the unit,
// or, for spans without a lane argument, the unit's own track.
func (ts *trackSet) lane(unit uint16, hasLane bool, laneID uint64) *lane {
	key := laneKey{unit: unit, lane: laneID, none: !hasLane}
	if l := ts.lanes[key]; l != nil {
		return l
	}
	ut := ts.unit(unit)
	l := &lane{unit: ut}
	if hasLane {
		l.rows = []*track{ts.add(ut, "lane "+strconv.FormatUint(laneID, 10))}
	} else {
		l.rows = []*track{ut}
	}
	ts.lanes[key] = l
	return l
}

// addRow adds a row to a lane, beside its track: "lane 3 #2", or
// "lane 3 spans" for begin/end spans displaced by complete ones.
func (ts *trackSet) addRow(l *lane, what string) *track {
	base := l.rows[0]
	name := base.name + " #" + strconv.Itoa(len(l.rows)+1)
	if what != "" {
		name = base.name + " " + what
	}
	t := ts.add(l.unit, name)
	if what == "" {
		l.rows = append(l.rows, t)
	}
	return t
}

// counter returns the counter track of a unit's counter format.
func (ts *trackSet) counter(unit uint16, f *fmtInfo) *track {
	key := counterKey{unit: unit, id: f.id}
	if t := ts.counters[key]; t != nil {
		return t
	}
	t := ts.add(ts.unit(unit), f.name)
	t.counter = true
	ts.counters[key] = t
	return t
}

// path returns the track's full name (for chrome-json, which has no nesting).
func (t *track) path() string {
	if t.parent == nil {
		return t.name
	}
	if t.parent.parent == nil {
		return t.name
	}
	return t.parent.path() + "." + t.name
}
