package mmapio

import "github.com/chronon-sim/chronon-go/internal/tracefile"

// iterDecoded is Iter taking blocks the caller decoded already for q (with
// q's selector): the iteration takes them instead of decoding them again.
// It owns them from the call on: it releases each once done with it, and
// those it did not use when it stops (Close, the end, an error). A block
// given twice is released at once, one not in q's plan when the
// iteration stops.
func (r *Reader) iterDecoded(q Query, blocks []*tracefile.Decoded) *Iterator {
	it := r.Iter(q)
	var given map[int32]*tracefile.Decoded
	if it.sp != nil {
		given = make(map[int32]*tracefile.Decoded, len(blocks))
	}
	for _, bd := range blocks {
		if _, dup := given[bd.Block]; given == nil || dup {
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
