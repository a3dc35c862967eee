package mmapio

import "github.com/chronon-sim/chronon-go/internal/tracefile"

// IterDecoded is Iter for a caller that decoded some of q's blocks already
// with DecodeBlock(bi, q): a pre-pass over the blocks in any order (on
// several goroutines, with no merge) that then reads the events in cycle
// order. The iteration takes those blocks instead of decoding them again.
//
// It owns them from the call on: it releases each once done with it, and
// those it did not use when it stops (Close, the end, an error); the caller
// must neither use nor Release them afterwards. A block decoded for another
// query (another cycle range or unit set), given twice, or not in q's plan,
// is released unused (when the iteration stops), and decoded again if q
// needs it. The blocks are
// memory the caller holds until the iteration reaches them, outside the
// iteration's memory budget (WithMemoryBudget): the caller bounds them.
func (r *Reader) IterDecoded(q Query, blocks []*DecodedBlock) *Iterator {
	it := r.Iter(q)
	var given map[int32]*tracefile.Decoded
	if it.sp != nil {
		given = make(map[int32]*tracefile.Decoded, len(blocks))
	}
	sel := q.selector()
	for _, d := range blocks {
		bd := d.bd
		if bd == nil {
			continue // released already
		}
		if d.r != r {
			d.Release()
			continue
		}
		d.bd = nil // the iteration's now
		_, dup := given[bd.Block]
		if given == nil || dup || d.sel != *sel {
			tracefile.Release(bd)
			continue
		}
		given[bd.Block] = bd
	}
	if it.sp == nil {
		return it
	}
	// No segment was handed to the workers yet (the first Next does), so
	// none looked for given blocks before this. A pipe that Close stopped
	// already has released what it held: these go back here.
	sp := it.sp
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.stopped.Load() {
		for _, bd := range given {
			tracefile.Release(bd)
		}
		return it
	}
	sp.given = given
	return it
}
