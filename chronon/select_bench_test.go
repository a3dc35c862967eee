package chronon

import "testing"

// BenchmarkEmitWindow measures an emit under a record-time cycle window
// (WithSelect "cycles="): before the window the inlined gate test rejects
// the event at the call site, as a disabled category is (BenchmarkEmit/
// disabled); past the window's end it costs a call and the exact checks
// out of line; inside it costs what BenchmarkEmit/u64_bool does. "outside"
// is "before" under its earlier name, kept for comparisons across versions.
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
	b.Run("before", func(b *testing.B) { run(b, "cycles=18446744073709551000-18446744073709551615") })
	b.Run("after", func(b *testing.B) { run(b, "cycles=0-0") })
	b.Run("inside", func(b *testing.B) { run(b, "cycles=0-") })
}
