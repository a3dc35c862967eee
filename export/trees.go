package export

import (
	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/spantree"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Async spans and parent links (the argument roles Id and Parent) go
// through a spantree.Orderer, which pairs begins and ends by (unit, id),
// resolves each parent id to a span (node) and hands a child that began
// before its parent in the same cycle over after it. An async span takes a
// row of its unit (trackSet.asyncRow) while it is open.
//
// A parent link is an arrow from the parent span's begin to the child
// (its begin, or the instant). Perfetto needs the arrows that leave a slice
// on the slice's begin (flow_ids), and Chrome JSON a flow start event per
// arrow there, but the children come later: a pre-pass over the same
// events counts each node's children, so that a parent's begin starts one
// flow per child, edgeFlow(node, k) for its k-th child, which the child
// ends (terminating_flow_ids; a Chrome JSON flow end event).

// treeInfo describes an event to the orderer. v is reset for it.
func treeInfo(ev *mmapio.Event, f *fmtInfo, v *argview.View, runOf []uint16) spantree.Info {
	in := spantree.Info{Cycle: ev.Cycle, Unit: ev.UnitID}
	if runOf != nil {
		in.Run = runOf[ev.UnitID]
	}
	if f.spanID < 0 && f.parent < 0 {
		return in
	}
	v.Reset(f.types, ev.RawArgs(), int(ev.ArgCount))
	if v.Has(f.spanID) {
		in.ID = v.Uint(f.spanID)
		switch f.kind {
		case schema.KindAsyncBegin:
			in.Kind = spantree.Begin
		case schema.KindAsyncEnd:
			in.Kind = spantree.End
		case schema.KindInstant:
			in.Kind = spantree.Member
		}
	}
	if v.Has(f.parent) {
		in.Parent = v.Uint(f.parent)
	}
	return in
}

// needTrees reports whether some format has an id or a parent, and whether
// some has a parent.
func needTrees(fmts []*fmtInfo) (trees, parents bool) {
	for _, f := range fmts {
		if f == nil {
			continue
		}
		trees = trees || f.spanID >= 0 || f.parent >= 0
		parents = parents || f.parent >= 0
	}
	return trees, parents
}

// edgeFlow is the flow id of the arrow from node to its child-th child:
// the top bit set, so that it never meets a flow id of a flow argument
// (those below 2^63). Nodes past 2^43 and children past 2^20 get none (0).
func edgeFlow(node int64, child uint32) uint64 {
	if node < 0 || node >= 1<<43 || child >= 1<<20 {
		return 0
	}
	return 1<<63 | uint64(node)<<20 | uint64(child)
}

// links are the arrows of one event besides its flow: the parent edge it
// ends, and the edges to its children that its begin starts.
type links struct {
	in   uint64 // edgeFlow from its parent, 0: none
	node int64  // the node whose child edges start here, -1: none
	from uint32 // the first of them (children handled before a file split have theirs)
	to   uint32 // one past the last
}

var noLinks = links{node: -1}

// prepass reads the events the main pass will read (q from its first
// cycle: the lookback included), through an orderer as the main pass does,
// and returns each node's number of children (when parents) and the Chrome
// JSON flow successors of the events from cycle start on (when flows).
func prepass(r *mmapio.Reader, q mmapio.Query, start uint64, fmts []*fmtInfo, labels []string, runOf []uint16, parents, flows bool) (*flowEnds, []uint32, error) {
	var fe *flowEnds
	var latest runIndexes
	if flows {
		fe = &flowEnds{live: map[uint64]struct{}{}}
		latest = newRunIndexes(labels)
	}
	or := spantree.NewOrderer[mmapio.Event]()
	or.Clone = func(ev mmapio.Event) mmapio.Event { return ev.Clone() }
	var v argview.View
	var open int64 // async spans begun and not ended: what the orderer holds (held.go)
	emit := func(in spantree.Info, ev mmapio.Event, res spantree.Resolved) error {
		switch {
		case in.Kind == spantree.Begin:
			open++
		case in.Kind == spantree.End && res.Node >= 0:
			open--
		}
		if fe != nil && ev.Cycle >= start {
			fe.count(&ev, fmts, &v, latest, runOf)
		}
		return nil
	}
	unknown := unknownFormat()
	it := r.Iter(q)
	defer it.Close()
	for n := 0; it.Next(); n++ {
		ev := it.Event()
		f := unknown
		if int(ev.FormatID) < len(fmts) && fmts[ev.FormatID] != nil {
			f = fmts[ev.FormatID]
		}
		if err := or.Push(treeInfo(&ev, f, &v, runOf), ev, emit); err != nil {
			return nil, nil, err
		}
		if n&heldCheckMask == 0 {
			if err := checkPrepassHeld(r, ev.Cycle, open); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := it.Err(); err != nil {
		return nil, nil, err
	}
	if err := or.Flush(emit); err != nil {
		return nil, nil, err
	}
	var kids []uint32
	if parents {
		kids = or.ChildCounts()
	}
	return fe, kids, nil
}
