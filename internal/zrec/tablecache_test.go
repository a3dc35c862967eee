package zrec

import (
	"slices"
	"testing"
)

// usedEqual fails unless a and b agree on what the encoder reads of a
// table built from n counts: tableLog, the first 1<<tableLog states, the
// transforms of the n symbols.
func usedEqual(t *testing.T, what string, a, b *fseTable, n int) {
	t.Helper()
	if a.tableLog != b.tableLog {
		t.Fatalf("%s: tableLog %d, a fresh build has %d", what, a.tableLog, b.tableLog)
	}
	for i := 0; i < 1<<a.tableLog; i++ {
		if a.st[i] != b.st[i] {
			t.Fatalf("%s: state %d is %d, a fresh build has %d", what, i, a.st[i], b.st[i])
		}
	}
	for s := 0; s < n; s++ {
		if a.tt[s] != b.tt[s] {
			t.Fatalf("%s: symbol %d's transform is %+v, a fresh build has %+v", what, s, a.tt[s], b.tt[s])
		}
	}
}

// TestTableCache: through the cache, every table is the one a fresh build
// makes, whether the counts were seen before (a hit, possibly into a
// table that last held a larger or smaller one) or not, and a cache that
// has cycled through more count sets than it holds still answers right.
func TestTableCache(t *testing.T) {
	rng := splitmix64(7)
	type key struct {
		norm [maxSymbolSize]int16
		n    int
		tl   uint8
	}
	var keys []key
	for i := 0; i < 24; i++ {
		var hist [maxSymbolSize]uint32
		n := 2 + int(rng.next()%40)
		total := 50 + uint32(rng.next()%5000)
		for j := uint32(0); j < total; j++ {
			hist[rng.next()%uint64(n)]++
		}
		hist[n-1]++ // the last symbol is present
		total++
		tl := optimalTableLog(uint8(5+rng.next()%5), total, n-1)
		var k key
		k.n, k.tl = n, tl
		normalize(k.norm[:n], hist[:n], total, tl)
		keys = append(keys, k)
	}
	var c tableCache
	var got fseTable
	hits := 0
	for round := 0; round < 400; round++ {
		// Mostly a few recent count sets (hits), sometimes any (misses).
		k := keys[rng.next()%6]
		if round%5 == 0 {
			k = keys[rng.next()%uint64(len(keys))]
		}
		for i := range c.entries {
			e := &c.entries[i]
			if e.n == k.n && e.tableLog == k.tl && slices.Equal(e.norm[:e.n], k.norm[:k.n]) {
				hits++
				break
			}
		}
		c.build(&got, k.norm[:k.n], k.tl)
		var want fseTable
		want.build(k.norm[:k.n], k.tl)
		usedEqual(t, "round", &got, &want, k.n)
	}
	if hits < 100 || hits > 390 {
		t.Fatalf("%d hits in 400 builds: the test no longer exercises both hits and misses", hits)
	}
}
