package zrec

import "testing"

func BenchmarkFSEBuild(b *testing.B) {
	var hist [maxSymbolSize]uint32
	rng := splitmix64(1)
	for i := 0; i < 3000; i++ {
		hist[rng.next()%20+rng.next()%20]++
	}
	var norm [maxSymbolSize]int16
	normalize(norm[:40], hist[:40], 3000, 9)
	var t fseTable
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.build(norm[:40], 9)
	}
}
