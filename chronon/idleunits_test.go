package chronon_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/workload"
)

// A simulator may register every unit id (65,535) and drive a few of them.
// A unit that has not emitted must cost a few hundred bytes, not its ring:
// rings used to be allocated whole at NewUnit, 256 KiB each by default, so
// 65,535 units took 16 GB. Registration is checked as it goes so that a
// regression fails after a few hundred units instead of exhausting memory.
func TestIdleUnitsCostNoRing(t *testing.T) {
	w, err := workload.RegisterW1()
	require.NoError(t, err)
	tr, _ := create(t) // default block and ring sizes: 4 x 64 KiB per ring
	defer tr.Close()
	busy, err := workload.NewW1Units(tr, 16)
	require.NoError(t, err)

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	// growth saturates at 0: memory other tests left behind may be freed
	// meanwhile, which lowers the heap below base.
	growth := func() uint64 {
		if h := heap(); h > base {
			return h - base
		}
		return 0
	}
	// allowance: 2 KiB per idle unit (it costs about 1) and 16 MiB of slack;
	// a 256 KiB ring per unit exceeds it from the first checkpoint on.
	allowance := func(n int) uint64 { return 16<<20 + uint64(n)*2048 }
	const total = 65535
	for i := len(busy); i < total; i++ {
		_, err := tr.NewUnit("idle" + strconv.Itoa(i))
		require.NoError(t, err)
		if n := i + 1 - len(busy); n == 256 || n == 4096 || n == total-len(busy) {
			grown := growth()
			require.Less(t, grown, allowance(n), "heap grew %d MiB for %d idle units", grown>>20, n)
		}
	}
	_, err = tr.NewUnit("one too many")
	require.ErrorContains(t, err, "65535 unit ids")

	events := 2_000_000
	if raceEnabled {
		events = 200_000
	}
	st := workload.NewW1State(1)
	w.Emit(busy, &st, 0, events)
	require.NoError(t, tr.Flush())
	grown := growth()
	// The 16 busy units add their rings (8 MiB) and the pipeline its buffers.
	require.Less(t, grown, allowance(total)+32<<20, "heap grew %d MiB with 16 units emitting", grown>>20)
	rss, ok := vmRSS(t)
	t.Logf("65,535 units, 16 emitting W1: heap +%d MiB, VmRSS %d MiB", grown>>20, rss>>20)
	if ok && !raceEnabled { // the race detector's shadow memory multiplies RSS
		require.Less(t, rss, uint64(300<<20), "VmRSS")
	}
	require.NoError(t, tr.Close())
	s := tr.Stats()
	require.Len(t, s.Units, total)
	var written uint64
	for _, u := range s.Units {
		written += u.Written
	}
	require.Equal(t, uint64(events), written)
}

// vmRSS returns the process's resident set size from /proc/self/status;
// false where there is none (not Linux: the heap bounds still apply).
func vmRSS(t *testing.T) (uint64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb uint64
			_, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb)
			require.NoError(t, err)
			return kb << 10, true
		}
	}
	t.Fatal("VmRSS missing from /proc/self/status")
	return 0, false
}
