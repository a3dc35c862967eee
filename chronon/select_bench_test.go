package chronon

import "testing"

// BenchmarkEmitWindow measures an emit under a record-time cycle window
// (WithSelect "cycles="): outside it the event costs the mask test, the
// call and one compare; inside it costs what BenchmarkEmit/u64_bool does.
func BenchmarkEmitWindow(b *testing.B) {
	run := func(b *testing.B, sel string) {
		t, err := Create(b.TempDir()+"/bench.ctrace", WithAutoMetadata(false), WithLevel(LevelNone),
			WithFlushInterval(0), WithRingSize(1<<20), WithSelect(sel))
		if err != nil {
			b.Fatal(err)
		}
		t.cfg.discard = true
		u, err := t.NewUnit("core0.fetch")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			benchFmt.Emit(u, uint64(i), uint64(i)<<2, i&1 == 0)
		}
		report(b, t)
	}
	b.Run("outside", func(b *testing.B) { run(b, "cycles=18446744073709551000-18446744073709551615") })
	b.Run("inside", func(b *testing.B) { run(b, "cycles=0-") })
}
