package chronon

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

var benchFmt = MustFormat2[uint64, bool]("bench pc=0x{:x} taken={}", WithCategory(2))
var benchStr = MustFormat2[string, uint32]("bench s={} n={}", WithCategory(2))

// benchUnit returns a unit of a tracer whose consumer releases chunks
// unread, so that BenchmarkEmit measures the producer alone: the emit path
// with its chunk seals and ring hand-offs, without compression or I/O
// (BenchmarkW1 measures the whole pipeline).
func benchUnit(b *testing.B, mask uint64) (*Tracer, *Unit) {
	t, err := Create(b.TempDir()+"/bench.ctrace", WithAutoMetadata(false), WithLevel(LevelNone),
		WithFlushInterval(0), WithRingSize(1<<20))
	if err != nil {
		b.Fatal(err)
	}
	t.cfg.discard = true
	u, err := t.NewUnit("core0.fetch", WithUnitMask(mask))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	return t, u
}

func report(b *testing.B, t *Tracer) {
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	if err := t.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEmit measures one event with a uint64 and a bool (enabled), the
// same call on a unit whose mask disables it, and an event with a string.
func BenchmarkEmit(b *testing.B) {
	b.Run("u64_bool", func(b *testing.B) {
		t, u := benchUnit(b, ^uint64(0))
		for i := 0; i < b.N; i++ {
			benchFmt.Emit(u, uint64(i), uint64(i)<<2, i&1 == 0)
		}
		report(b, t)
	})
	b.Run("disabled", func(b *testing.B) {
		t, u := benchUnit(b, 1)
		for i := 0; i < b.N; i++ {
			benchFmt.Emit(u, uint64(i), uint64(i)<<2, i&1 == 0)
		}
		report(b, t)
	})
	b.Run("string16_u32", func(b *testing.B) {
		t, u := benchUnit(b, ^uint64(0))
		for i := 0; i < b.N; i++ {
			benchStr.Emit(u, uint64(i), "lsq_full_reason!", uint32(i))
		}
		report(b, t)
	})
}

// BenchmarkEmitFloor stores the 35 bytes of BenchmarkEmit/u64_bool's event
// (the same seven stores putHeader and the arguments make) in a loop with
// no check, no call and no hand-off, into a 1 MiB buffer used round and
// round as the benchmark's ring is: what this machine takes to write the
// event at all, the floor under the emit (docs/performance.md, "The emit
// alone", compares the two side by side).
func BenchmarkEmitFloor(b *testing.B) {
	const size = 1 << 20
	buf := make([]byte, size+64)
	base := unsafe.Pointer(unsafe.SliceData(buf))
	f := &benchFmt.format
	b.ReportAllocs()
	b.ResetTimer()
	off := uint32(0)
	for i := 0; i < b.N; i++ {
		if off+benchFmt.size > size {
			off = 0
		}
		p := unsafe.Add(base, off)
		*(*uint16)(p) = f.argsSize
		*(*uint64)(unsafe.Add(p, 2)) = uint64(i)
		*(*uint64)(unsafe.Add(p, 10)) = f.idCat
		*(*uint64)(unsafe.Add(p, 18)) = 1<<16 | f.argcWord
		*(*uint64)(unsafe.Add(p, 26)) = uint64(i) << 2
		*(*bool)(unsafe.Add(p, 34)) = i&1 == 0
		off += benchFmt.size
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	if buf[0] != byte(f.argsSize) {
		b.Fatal("the floor loop stored nothing")
	}
}

// BenchmarkSharedEmit measures the event of BenchmarkEmit/u64_bool on a
// shared unit (WithShared): from one goroutine (the lock uncontended), and
// from 2, 4 and 8 goroutines emitting into the unit at once (b.N events in
// all; ns/op is wall time per event, so it includes the waits for the
// lock). "unshared" is the same loop on an ordinary unit, side by side.
func BenchmarkSharedEmit(b *testing.B) {
	run := func(b *testing.B, shared bool, goroutines int) {
		t, err := Create(b.TempDir()+"/bench.ctrace", WithAutoMetadata(false), WithLevel(LevelNone),
			WithFlushInterval(0), WithRingSize(1<<20))
		if err != nil {
			b.Fatal(err)
		}
		t.cfg.discard = true
		var opts []UnitOption
		if shared {
			opts = append(opts, WithShared())
		}
		u, err := t.NewUnit("core0.fetch", opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(benchFmt.size))
		b.ResetTimer()
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			n := b.N / goroutines
			if g == 0 {
				n += b.N % goroutines
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < n; i++ {
					benchFmt.Emit(u, uint64(i), uint64(i)<<2, i&1 == 0)
				}
			}()
		}
		wg.Wait()
		report(b, t)
	}
	b.Run("unshared", func(b *testing.B) { run(b, false, 1) })
	for _, g := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("shared_%dg", g), func(b *testing.B) { run(b, true, g) })
	}
}

var benchSpan = MustSpan("bench.exec", WithCategory(2))

// BenchmarkSpanComplete measures Span.Complete, whose check that the span
// ends after it begins (start+dur does not wrap) is on the emit path.
func BenchmarkSpanComplete(b *testing.B) {
	t, u := benchUnit(b, ^uint64(0))
	for i := 0; i < b.N; i++ {
		benchSpan.Complete(u, uint64(i), uint64(i&7), uint32(i&3), uint64(i))
	}
	report(b, t)
}
