package analysis

import (
	"math"
	"slices"
	"sort"
)

// TreeStats summarizes the trees that parent links make (schema roles Id
// and Parent: a request and the sub-requests it started, on any units),
// one entry per name of the span at the root. A tree is a root span
// (without a parent, or whose parent id named no span) that has children:
// a request with sub-requests.
type TreeStats struct {
	Root      string `json:"root"`      // the root spans' name
	Trees     uint64 `json:"trees"`     // requests with sub-requests
	Childless uint64 `json:"childless"` // root spans of the name without children, in no distribution
	Spans     Dist   `json:"spans"`     // spans per tree, the root included
	FanOut    Dist   `json:"fan_out"`
	Depth     Dist   `json:"depth"`   // edges from the root to the deepest span, per tree
	Latency   Dist   `json:"latency"` // the root's duration, in cycles
	// Critical is, per unit and span, the cycles of the trees' latency on
	// their critical paths: the chain of spans that decided when each
	// request ended (from the root's end, back through the child that
	// ended last before then, and so on; the time a span waited on no
	// child is its own). The shares add up to 1.
	Critical []CriticalStats `json:"critical"`
	// Slowest is the critical path of the slowest tree, in time order.
	Slowest []PathStep `json:"slowest"`
}

// CriticalStats is one span's part of the critical paths.
type CriticalStats struct {
	Unit   string  `json:"unit"`
	Span   string  `json:"span"`
	Cycles uint64  `json:"cycles"`
	Share  float64 `json:"share"`
}

// PathStep is a stretch of a critical path spent in one span.
type PathStep struct {
	Unit  string `json:"unit"`
	Span  string `json:"span"`
	Start uint64 `json:"start"`
	End   uint64 `json:"end"`
}

// treeNode is one async span of a trace with parent links: 36 bytes, kept
// for every span until the report (the critical paths need whole trees).
type treeNode struct {
	begin, end  uint64 // end: the window's end while open
	parent      int32  // -1: a root
	first, next int32  // children: the first, and this node's next sibling (-1: none)
	depth       int32
	key         uint32 // index into stater.keys: the span's unit and name
	gone        bool   // ended before the window (the lookback's): in no tree
}

// treeKey is a span's unit and name.
type treeKey struct {
	unit uint16
	name string
}

// trees is the span trees of a stater: every async span, when some
// format has a parent role.
type trees struct {
	nodes  []treeNode
	keys   []treeKey
	keyIdx map[treeKey]uint32
}

func (tr *trees) key(unit uint16, name string) uint32 {
	k := treeKey{unit, name}
	if i, ok := tr.keyIdx[k]; ok {
		return i
	}
	i := uint32(len(tr.keys))
	tr.keys = append(tr.keys, k)
	tr.keyIdx[k] = i
	return i
}

// begin records node n (the orderer numbers nodes in order, so n is the
// next index), a child of parent (-1: none).
func (tr *trees) begin(n int64, parent int64, unit uint16, name string, c uint64) {
	nd := treeNode{begin: c, end: math.MaxUint64, parent: -1, first: -1, next: -1, key: tr.key(unit, name)}
	if parent >= 0 && parent < int64(len(tr.nodes)) && !tr.nodes[parent].gone { // a parent gone before the window: a root
		p := &tr.nodes[parent]
		nd.parent, nd.depth = int32(parent), p.depth+1
		nd.next, p.first = p.first, int32(n)
	}
	tr.nodes = append(tr.nodes, nd)
}

// report summarizes the trees; open spans end at end.
func (tr *trees) report(end uint64, name func(uint16) string) []TreeStats {
	type group struct {
		spans, fan, depth, lat *hist
		crit                   map[uint32]uint64
		trees                  uint64
		slowest                int32
		slowLat                uint64
	}
	groups := map[string]*group{}
	var order []string
	for i := range tr.nodes {
		if tr.nodes[i].end == math.MaxUint64 {
			tr.nodes[i].end = max(end, tr.nodes[i].begin)
		}
	}
	// Per tree: its spans and depth, by walking from each root.
	var stack []int32
	childless := map[string]uint64{}
	for i := range tr.nodes {
		r := &tr.nodes[i]
		if r.parent >= 0 || r.gone {
			continue
		}
		if r.first < 0 {
			childless[tr.keys[r.key].name]++
			continue
		}
		rname := tr.keys[r.key].name
		g := groups[rname]
		if g == nil {
			g = &group{spans: newHist(), fan: newHist(), depth: newHist(), lat: newHist(), crit: map[uint32]uint64{}, slowest: -1}
			groups[rname] = g
			order = append(order, rname)
		}
		g.trees++
		n, deepest := uint64(0), int32(0)
		stack = append(stack[:0], int32(i))
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nd := &tr.nodes[x]
			n++
			deepest = max(deepest, nd.depth-r.depth)
			kids := uint64(0)
			for c := nd.first; c >= 0; c = tr.nodes[c].next {
				kids++
				stack = append(stack, c)
			}
			if kids > 0 {
				g.fan.add(kids)
			}
		}
		g.spans.add(n)
		g.depth.add(uint64(deepest))
		lat := r.end - r.begin
		g.lat.add(lat)
		tr.critical(int32(i), func(k uint32, from, to uint64) { g.crit[k] += to - from })
		if g.slowest < 0 || lat > g.slowLat {
			g.slowest, g.slowLat = int32(i), lat
		}
	}
	sort.Strings(order)
	var out []TreeStats
	for _, rname := range order {
		g := groups[rname]
		ts := TreeStats{Root: rname, Trees: g.trees, Childless: childless[rname], Spans: g.spans.dist(), FanOut: g.fan.dist(), Depth: g.depth.dist(), Latency: g.lat.dist()}
		var total uint64
		for _, c := range g.crit {
			total += c
		}
		for k, c := range g.crit {
			cs := CriticalStats{Unit: name(tr.keys[k].unit), Span: tr.keys[k].name, Cycles: c}
			if total > 0 {
				cs.Share = float64(c) / float64(total)
			}
			ts.Critical = append(ts.Critical, cs)
		}
		slices.SortFunc(ts.Critical, func(a, b CriticalStats) int {
			switch {
			case a.Cycles != b.Cycles:
				return int(min(max(int64(b.Cycles)-int64(a.Cycles), -1), 1))
			case a.Unit != b.Unit:
				return cmpStr(a.Unit, b.Unit)
			}
			return cmpStr(a.Span, b.Span)
		})
		var steps []PathStep
		tr.critical(g.slowest, func(k uint32, from, to uint64) {
			steps = append(steps, PathStep{Unit: name(tr.keys[k].unit), Span: tr.keys[k].name, Start: from, End: to})
		})
		slices.Reverse(steps)
		ts.Slowest = steps
		out = append(out, ts)
	}
	return out
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// critical calls seg with each stretch of the critical path of the tree
// under root (the span's key, from, to), the last first. A span's interval
// [begin, end] is walked back from its end: the child that ended last
// before the point reached takes the path (its own interval walked the
// same way), and the time between is the span's own; the walk goes on from
// that child's begin.
func (tr *trees) critical(root int32, seg func(key uint32, from, to uint64)) {
	type frame struct {
		node int32
		cur  uint64  // the point the walk has reached, going back
		kids []int32 // children by end, latest first; consumed from the front
	}
	self := func(n int32, from, to uint64) {
		if to > from {
			seg(tr.nodes[n].key, from, to)
		}
	}
	children := func(n int32) []int32 {
		var ks []int32
		for c := tr.nodes[n].first; c >= 0; c = tr.nodes[c].next {
			ks = append(ks, c)
		}
		slices.SortFunc(ks, func(a, b int32) int {
			ea, eb := tr.nodes[a].end, tr.nodes[b].end
			switch {
			case ea != eb:
				if ea > eb {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
		return ks
	}
	stack := []frame{{node: root, cur: tr.nodes[root].end, kids: children(root)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		nd := &tr.nodes[f.node]
		descended := false
		for len(f.kids) > 0 && f.cur > nd.begin {
			c := f.kids[0]
			f.kids = f.kids[1:]
			cn := &tr.nodes[c]
			if cn.begin >= f.cur {
				continue // began after the point reached: not on the path
			}
			ce := min(cn.end, f.cur)
			self(f.node, ce, f.cur)
			f.cur = max(cn.begin, nd.begin)
			stack = append(stack, frame{node: c, cur: ce, kids: children(c)})
			descended = true
			break
		}
		if descended {
			continue
		}
		self(f.node, nd.begin, f.cur)
		stack = stack[:len(stack)-1]
	}
}

// openWindow begins the trees at a window's first cycle a: the spans that
// ended before it are left out (their children become roots), the ones
// still open begin at a. The children lists are made again in node order,
// as begin made them.
func (tr *trees) openWindow(a uint64) {
	for i := range tr.nodes {
		tr.nodes[i].first = -1
	}
	for i := range tr.nodes {
		nd := &tr.nodes[i]
		if nd.gone {
			continue
		}
		nd.begin = max(nd.begin, a)
		if nd.parent < 0 {
			continue
		}
		if p := &tr.nodes[nd.parent]; p.gone {
			nd.parent = -1
		} else {
			nd.next, p.first = p.first, int32(i)
		}
	}
}
