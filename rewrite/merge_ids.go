package rewrite

import "slices"

// mergeUnitIDs returns, for each file, the unit ids it names (its schema's
// and its blocks' unit sets; sorted, without 0), and every id some file
// names.
func (m *merger) mergeUnitIDs() ([][]uint16, *[1 << 16]bool, error) {
	named := new([1 << 16]bool)
	fileIDs := make([][]uint16, len(m.readers))
	for i, r := range m.readers {
		var ids []uint16
		for _, u := range r.Schema().Units {
			ids = append(ids, u.ID)
		}
		blocks, err := mergeBlocks(r)
		if err != nil {
			return nil, nil, err
		}
		for bi := range blocks {
			ids = append(ids, blocks[bi].Units...)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		if len(ids) > 0 && ids[0] == 0 {
			ids = ids[1:] // unit 0 (no unit) is the same in every file
		}
		for _, id := range ids {
			named[id] = true
		}
		fileIDs[i] = ids
	}
	return fileIDs, named, nil
}

// idPicker gives a unit that must move (its id is taken by an earlier
// file) its new id: the lowest id no file names, so that the move does not
// take the id of a unit met later, of the same file or a later one, which
// would then have to move in turn (a cascade renumbering blocks whose ids
// were free: an idle unit with a clashing id would renumber its whole
// file). Every id an earlier file names is taken already, so "no file
// names it" is "neither this file nor a later one does". Only when no such
// id is left does it take the lowest id still free (which may make a later
// unit move). Both are lowest-first, so the plan is deterministic, and
// when every file clashes entirely (rank files numbered 1..N each) it is
// the numbering in file order it always was.
type idPicker struct {
	named *[1 << 16]bool
	fresh int // below it, every id is named or taken
	any   int // below it, every id is taken
}

func newIDPicker(named *[1 << 16]bool) *idPicker {
	return &idPicker{named: named, fresh: 1, any: 1}
}

// pick returns the id for a unit that moves (false: every id is taken).
// The ids taken only grow, so both cursors only move up.
func (p *idPicker) pick(used *[1 << 16]bool) (uint16, bool) {
	for p.fresh < 1<<16 && (used[p.fresh] || p.named[p.fresh]) {
		p.fresh++
	}
	if p.fresh < 1<<16 {
		return uint16(p.fresh), true
	}
	for p.any < 1<<16 && used[p.any] {
		p.any++
	}
	if p.any < 1<<16 {
		return uint16(p.any), true
	}
	return 0, false
}
