// Package emitcompare holds emit benchmarks written against chronon's public
// API only, so that scripts/emitcompare.sh can compile the same source
// against an earlier commit and the working tree and run them alternately:
// the only fair way to compare sub-nanosecond costs on a noisy host. (An
// enabled emit is measured by chronon's own BenchmarkEmit/u64_bool, whose
// writer discards the chunks: through the public API the writer bounds it.)
//
// Each iteration emits 16 events. A benchmark loop of one inlined emit is
// a few instructions, and whether it happens to cross a 64-byte line of the
// instruction cache moved BenchmarkEmit/disabled by 0.15 ns between builds
// whose emit code was identical; 16 emits per iteration amortize that.
package emitcompare

import (
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
)

var f2 = chronon.MustFormat2[uint64, bool]("emitcompare pc=0x{:x} taken={}", chronon.WithCategory(2))

func unit(b *testing.B, mask uint64, opts ...chronon.Option) *chronon.Unit {
	opts = append(opts, chronon.WithAutoMetadata(false), chronon.WithLevel(chronon.LevelNone), chronon.WithRingSize(1<<22))
	t, err := chronon.Create(b.TempDir()+"/emitcompare.ctrace", opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := t.Close(); err != nil {
			b.Error(err)
		}
	})
	u, err := t.NewUnit("core0.fetch", chronon.WithUnitMask(mask))
	if err != nil {
		b.Fatal(err)
	}
	return u
}

func run16(b *testing.B, u *chronon.Unit) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		c := uint64(i)
		f2.Emit(u, c, c, true)
		f2.Emit(u, c+1, c, false)
		f2.Emit(u, c+2, c, true)
		f2.Emit(u, c+3, c, false)
		f2.Emit(u, c+4, c, true)
		f2.Emit(u, c+5, c, false)
		f2.Emit(u, c+6, c, true)
		f2.Emit(u, c+7, c, false)
		f2.Emit(u, c+8, c, true)
		f2.Emit(u, c+9, c, false)
		f2.Emit(u, c+10, c, true)
		f2.Emit(u, c+11, c, false)
		f2.Emit(u, c+12, c, true)
		f2.Emit(u, c+13, c, false)
		f2.Emit(u, c+14, c, true)
		f2.Emit(u, c+15, c, false)
	}
	b.StopTimer()
}

// BenchmarkDisabled: the unit's mask disables the format's category.
func BenchmarkDisabled(b *testing.B) { run16(b, unit(b, 1)) }

// BenchmarkBeforeWindow: every event before the record-time window.
func BenchmarkBeforeWindow(b *testing.B) {
	run16(b, unit(b, ^uint64(0), chronon.WithSelect("cycles=18446744073709551000-18446744073709551615")))
}
