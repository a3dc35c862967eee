package mmapio

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

func w1Reader(t *testing.T, n int) (*Reader, *workload) {
	evs := ctracetest.W1Events(n, 16, 1)
	b, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
	require.NoError(t, err)
	return openBytesT(t, b, withSegmentBytes(16<<10)), &workload{s: ctracetest.W1Schema(16), events: evs, layout: lay}
}

// Several goroutines iterate one Reader at once (run with -race).
func TestConcurrentIterations(t *testing.T) {
	r, w := w1Reader(t, 30000)
	want := w.expected(func(*ctracetest.Event) bool { return true })
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := 0
			q := Query{}
			if g%2 == 1 {
				q = q.WithCycles(0, 1<<62)
			}
			for ev := range r.Events(q) {
				if ev.Cycle != w.events[want[i]].Cycle {
					t.Errorf("goroutine %d: event %d at cycle %d, want %d", g, i, ev.Cycle, w.events[want[i]].Cycle)
					return
				}
				i++
			}
			if i != len(want) {
				t.Errorf("goroutine %d: %d events, want %d", g, i, len(want))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, r.Err())
}

// Leaving an iteration early stops its goroutines.
func TestEarlyExitStopsDecoders(t *testing.T) {
	r, _ := w1Reader(t, 30000)
	for range r.Events(Query{}) { // warm up: the shared zstd decoder starts its own goroutines
	}
	base := runtime.NumGoroutine()
	for range 20 {
		n := 0
		for range r.Events(Query{}) {
			if n++; n == 100 {
				break
			}
		}
		it := r.Iter(Query{})
		it.Next()
		it.Close()
		it.Close()
		require.False(t, it.Next())
		lines := dumpText(t, r, Query{}, 5)
		require.Len(t, splitLines(lines), 5)
	}
	// (Not require.Eventually: it runs the condition on a goroutine of its own.)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), base)
}

// Closing the Reader ends iterations cleanly; a closed Reader yields nothing.
func TestCloseDuringIteration(t *testing.T) {
	r, _ := w1Reader(t, 30000)
	it := r.Iter(Query{})
	require.True(t, it.Next())
	require.NoError(t, r.Close())
	require.False(t, it.Next())
	require.ErrorIs(t, it.Err(), ErrClosed)
	require.NoError(t, r.Close(), "Close twice")

	r2, _ := w1Reader(t, 30000)
	n := 0
	for range r2.Events(Query{}) {
		if n++; n == 10 {
			r2.Close()
		}
	}
	require.Equal(t, 10, n)
	require.ErrorIs(t, r2.Err(), ErrClosed)

	for range r2.Events(Query{}) {
		t.Fatal("a closed Reader yields no events")
	}
	_, err := writeDump(r2, nil, Query{}, 0)
	require.ErrorIs(t, err, ErrClosed)
}

func TestQueryEdges(t *testing.T) {
	r, w := w1Reader(t, 5000)
	count := func(q Query) int {
		n := 0
		for range r.Events(q) {
			n++
		}
		return n
	}
	require.Equal(t, len(w.events), count(Query{}))
	require.Zero(t, count(Query{}.WithCycles(10, 5)), "start after end")
	require.Zero(t, count(Query{}.WithCycles(0, 999)), "before the first cycle")
	require.Zero(t, count(Query{}.WithCyclesFrom(1<<62)), "after the last cycle")
	require.Equal(t, len(w.events), count(Query{}.WithCyclesFrom(0)))
	require.Zero(t, count(Query{}.WithUnits(999)))
	unit3 := 0
	for _, e := range w.events {
		if e.SourceID == 3 {
			unit3++
		}
	}
	require.Equal(t, unit3, count(Query{}.WithUnits(3)))
	s, e, ok := Query{}.WithCycles(3, 4).Cycles()
	require.True(t, ok)
	require.Equal(t, []uint64{3, 4}, []uint64{s, e})
	require.Nil(t, r.UnitsNamed("nothing"))
	require.Len(t, r.UnitsNamed("core"), 16)
	require.Len(t, r.UnitsNamed(""), 16, "an empty name matches every named unit")
}
