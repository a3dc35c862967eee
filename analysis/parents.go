package analysis

import (
	"cmp"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/spantree"
)

// maxMissedIDs bounds the parent ids kept while no span has them: a trace
// full of orphans (a window that starts after their parents) keeps a few,
// and the rest stay "not found".
const maxMissedIDs = 1 << 16

// MaxMissingParents is how many parent ids Report.MissingParents names for
// each reason: the first ones, in the order their children were read.
const MaxMissingParents = 5

// MissingParent names a parent id that named no span when a child gave it,
// and the first child that gave it.
type MissingParent struct {
	ParentID uint64  `json:"parent_id"`
	Children uint64  `json:"children"`
	Unit     string  `json:"unit"`
	Cycle    uint64  `json:"cycle"`
	ID       *uint64 `json:"id,omitempty"`
}

type missedID struct {
	run uint16
	id  uint64
}

// missedChildren are the children whose parent id named no span yet: how
// many, and the first (its unit, cycle and id; seen orders the ids).
type missedChildren struct {
	n     uint64
	first childAt
	seen  uint64
}

// childAt is a child whose parent is missing.
type childAt struct {
	unit  uint16
	cycle uint64
	id    uint64
	hasID bool
}

func childOf(in spantree.Info) childAt {
	return childAt{unit: in.Unit, cycle: in.Cycle, id: in.ID, hasID: in.Kind == spantree.Begin}
}

// missedExample is a parent id kept for Report.MissingParents.
type missedExample struct {
	parent uint64
	n      uint64
	child  childAt
}

// parentNotes says why a child's parent id named no span when it was
// handled: the span began later (a parent begun after its child, in a
// later cycle), it waited on the child itself (a cycle of parent ids in
// one cycle), or no span ever had the id. It keeps the first parent ids of
// each reason to name them.
type parentNotes struct {
	missed              map[missedID]missedChildren // children whose parent id named no span yet, by that id
	seen                uint64                      // ids put in missed so far
	notFound, late, cyc uint64
	lateIDs, cycIDs     []missedExample // the first MaxMissingParents of each
}

// see notes event in of the orderer's resolution res.
func (p *parentNotes) see(in spantree.Info, res spantree.Resolved) {
	if in.Kind == spantree.Begin && len(p.missed) > 0 {
		k := missedID{in.Run, in.ID}
		if m, ok := p.missed[k]; ok {
			p.late, p.notFound = p.late+m.n, p.notFound-m.n
			if len(p.lateIDs) < MaxMissingParents {
				p.lateIDs = append(p.lateIDs, missedExample{parent: in.ID, n: m.n, child: m.first})
			}
			delete(p.missed, k)
		}
	}
	if !res.Missing {
		return
	}
	if res.Cycle {
		p.cyc++
		if len(p.cycIDs) < MaxMissingParents {
			p.cycIDs = append(p.cycIDs, missedExample{parent: in.Parent, n: 1, child: childOf(in)})
		}
		return
	}
	p.notFound++
	k := missedID{in.Run, in.Parent}
	if p.missed == nil {
		p.missed = map[missedID]missedChildren{}
	}
	m, ok := p.missed[k]
	if !ok && len(p.missed) >= maxMissedIDs {
		return
	}
	if !ok {
		m = missedChildren{first: childOf(in), seen: p.seen}
		p.seen++
	}
	m.n++
	p.missed[k] = m
}

// note adds the counts to notes, those that are not zero.
func (p *parentNotes) note(notes map[string]uint64) {
	for k, n := range map[string]uint64{"parents_not_found": p.notFound, "parents_begun_after_child": p.late, "parents_in_a_cycle_of_ids": p.cyc} {
		if n > 0 {
			notes[k] += n
		}
	}
}

// named returns the first parent ids of each reason, keyed as the notes
// are (nil when none is missing); unitName names a child's unit.
func (p *parentNotes) named(unitName func(uint16) string) map[string][]MissingParent {
	var notFound []missedExample
	if len(p.missed) > 0 {
		type kept struct {
			seen uint64
			ex   missedExample
		}
		all := make([]kept, 0, len(p.missed))
		for k, m := range p.missed {
			all = append(all, kept{m.seen, missedExample{parent: k.id, n: m.n, child: m.first}})
		}
		slices.SortFunc(all, func(a, b kept) int { return cmp.Compare(a.seen, b.seen) })
		for _, k := range all[:min(len(all), MaxMissingParents)] {
			notFound = append(notFound, k.ex)
		}
	}
	out := map[string][]MissingParent{}
	for k, exs := range map[string][]missedExample{"parents_not_found": notFound, "parents_begun_after_child": p.lateIDs, "parents_in_a_cycle_of_ids": p.cycIDs} {
		for _, e := range exs {
			mp := MissingParent{ParentID: e.parent, Children: e.n, Unit: unitName(e.child.unit), Cycle: e.child.cycle}
			if e.child.hasID {
				id := e.child.id
				mp.ID = &id
			}
			out[k] = append(out[k], mp)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
