package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// Hostile-test finding: diff had no memory bound: two small files whose
// blocks all overlap in cycles and each decode to 16 or 64 MiB (all of A
// was read before B, queued per unit, plus 8 blocks decoded ahead per
// side) grew past 2.6 GB whatever --memory said. Now each side's holding
// is charged against its budget: the pair is compared within the budgets
// (peak RSS beyond the mappings and the baseline <= 2 x budget + 32 MiB,
// the soft limit's slack), and a block too large for the budget is
// refused, exit 2, saying --memory.
func TestDiffMemoryBoundRSS(t *testing.T) {
	if raceEnabled {
		t.Skip("an RSS bound: runs in make test's bounds stage (stage 5), without the race detector, whose shadow memory and slowness (3 minutes to build its files) would swamp it")
	}
	bin := toolBinary(t)
	dir := t.TempDir()
	write := func(name string, blocks, size int) string {
		b, err := ctracetest.OverlapBomb(blocks, size, 1)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	run := func(args ...string) (int64, int, string) {
		var size int64
		for _, f := range args[len(args)-2:] {
			st, err := os.Stat(f)
			require.NoError(t, err)
			size += st.Size()
		}
		cmd := exec.Command(bin, append([]string{"diff"}, args...)...)
		cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
		hwm, stderr, err := peakRSSExit(t, cmd)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return hwm - size, code, stderr
	}
	tiny := write("tiny.ctrace", 1, 64<<10)
	base, code, _ := run(tiny, tiny)
	require.Equal(t, 0, code)

	a, b := write("a16.ctrace", 24, 16<<20), write("b16.ctrace", 24, 16<<20)
	peak, code, stderr := run("--memory", "64MiB", a, b)
	t.Logf("24 blocks of 16 MiB, --memory 64MiB: peak RSS %d MiB beyond the mappings, baseline %d MiB, exit %d", peak>>20, base>>20, code)
	require.Equal(t, 0, code, stderr)
	require.LessOrEqual(t, peak-base, int64(2*64<<20+32<<20))

	a, b = write("a64.ctrace", 4, 64<<20), write("b64.ctrace", 4, 64<<20)
	peak, code, stderr = run("--memory", "64MiB", a, b)
	t.Logf("blocks of 64 MiB, --memory 64MiB: peak RSS %d MiB, exit %d: %s", peak>>20, code, stderr)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, a)
	require.Contains(t, stderr, "block 0 at byte")
	require.Contains(t, stderr, "--memory")
	require.LessOrEqual(t, peak-base, int64(32<<20))
}

// Runs whose units overlap in cycles more than the budget can hold (A
// one block of 512 KiB per unit spanning the run, B one stream: each of
// A's blocks waits for most of B, B's other units for A's blocks) cannot
// be compared within a small budget: exit 2 naming both files and
// --memory, not unbounded growth; a budget large enough compares them.
func TestDiffMemoryPendingTooLarge(t *testing.T) {
	dir := t.TempDir()
	evs := ctracetest.W1Events(200_000, 8, 1)
	write := func(name string, o ctracetest.Options) string {
		b, err := ctracetest.Build(ctracetest.W1Schema(8), evs, o)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	a := write("a.ctrace", ctracetest.Options{BlockSize: 512 << 10, PerUnit: true})
	b := write("b.ctrace", ctracetest.Options{BlockSize: 4096, NoUnitSets: true})
	code, _, errOut := runTool("diff", "--memory", "1MiB", a, b)
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, a+", "+b+":")
	require.Contains(t, errOut, "fill the memory budget of 1048576 bytes per file")
	require.Contains(t, errOut, "raise it with --memory")
	code, out, errOut := runTool("diff", "--memory", "64MiB", a, b)
	require.Equal(t, 0, code, errOut+out)
}

// Two equal runs whose 24 blocks of 1 MiB all start at cycle 0 compare
// within a 4 MiB budget (the sides alternate, each block matched as it
// comes). A decoder woken by a release but not yet run was taken for
// stuck: the diff failed with "fill the memory budget" most times.
func TestDiffMemoryAlternatesWithinBudget(t *testing.T) {
	dir := t.TempDir()
	b, err := ctracetest.OverlapBomb(24, 1<<20, 1)
	require.NoError(t, err)
	a, c := filepath.Join(dir, "a.ctrace"), filepath.Join(dir, "b.ctrace")
	require.NoError(t, os.WriteFile(a, b, 0o644))
	require.NoError(t, os.WriteFile(c, b, 0o644))
	// The stall took most runs; ten catch it. Under the race detector,
	// which slows each diff of the 2 x 24 MiB tenfold, four (each still
	// alternating over all 24 blocks): make test's stage 5 runs ten
	// without it.
	runs := 10
	if raceEnabled {
		runs = 4
	}
	for range runs {
		code, out, errOut := runTool("diff", "--memory", "4MiB", a, c)
		require.Equal(t, 0, code, errOut+out)
	}
}
