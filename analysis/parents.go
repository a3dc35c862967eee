package analysis

import "github.com/chronon-sim/chronon-go/internal/spantree"

// maxMissedIDs bounds the parent ids kept while no span has them: a trace
// full of orphans (a window that starts after their parents) keeps a few,
// and the rest stay "not found".
const maxMissedIDs = 1 << 16

type missedID struct {
	run uint16
	id  uint64
}

// parentNotes says why a child's parent id named no span when it was
// handled: the span began later (a parent begun after its child, in a
// later cycle), it waited on the child itself (a cycle of parent ids in
// one cycle), or no span ever had the id.
type parentNotes struct {
	missed              map[missedID]uint64 // children whose parent id named no span yet, by that id
	notFound, late, cyc uint64
}

// see notes event in of the orderer's resolution res.
func (p *parentNotes) see(in spantree.Info, res spantree.Resolved) {
	if in.Kind == spantree.Begin && len(p.missed) > 0 {
		k := missedID{in.Run, in.ID}
		if n, ok := p.missed[k]; ok {
			p.late, p.notFound = p.late+n, p.notFound-n
			delete(p.missed, k)
		}
	}
	if !res.Missing {
		return
	}
	if res.Cycle {
		p.cyc++
		return
	}
	p.notFound++
	k := missedID{in.Run, in.Parent}
	if p.missed == nil {
		p.missed = map[missedID]uint64{}
	}
	if _, ok := p.missed[k]; ok || len(p.missed) < maxMissedIDs {
		p.missed[k]++
	}
}

// note adds the counts to notes, those that are not zero.
func (p *parentNotes) note(notes map[string]uint64) {
	for k, n := range map[string]uint64{"parents_not_found": p.notFound, "parents_begun_after_child": p.late, "parents_in_a_cycle_of_ids": p.cyc} {
		if n > 0 {
			notes[k] += n
		}
	}
}
