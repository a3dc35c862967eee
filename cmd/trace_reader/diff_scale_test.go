package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// The limits of one diff of the 16,384-unit files below (x4 under -race):
// near-linear work takes 0.15 s equal, 0.7 s differing on the test host;
// the quadratic code took 3.7 s and 50 s.
const (
	diffScaleEqualLimit = 1500 * time.Millisecond
	diffScaleDiffLimit  = 10 * time.Second
)

// Hostile-test finding: diff time grew quadratically with the units (a
// rescan of every pending unit after each block; the report re-planning
// the query over every block for each differing unit). Before the fix, on
// the test host: 16,384 units, 150,000 events, equal files (per-unit vs
// one-stream layout) 3.7 s, differing files (another seed) 50 s; with
// 32,768 units and 300,000 events 11 s and 143 s.
func TestDiffScalesWithUnits(t *testing.T) {
	const units, events = 16384, 150_000
	dir := t.TempDir()
	write := func(name string, seed uint64, o ctracetest.Options) string {
		b, err := ctracetest.Build(ctracetest.W1Schema(units), ctracetest.W1Events(events, units, seed), o)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	a := write("a.ctrace", 1, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
	b := write("b.ctrace", 1, ctracetest.Options{NoUnitSets: true})
	c := write("c.ctrace", 2, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
	for _, tc := range []struct {
		b     string
		code  int
		limit time.Duration
	}{{b, 0, diffScaleEqualLimit}, {c, 1, diffScaleDiffLimit}} {
		start := time.Now()
		code, out, errOut := runTool("diff", a, tc.b)
		took := time.Since(start)
		t.Logf("diff %s %s: %v, %d bytes of report", filepath.Base(a), filepath.Base(tc.b), took, len(out))
		require.Equal(t, tc.code, code, errOut)
		require.Less(t, took, tc.limit*raceSlowdown)
		if tc.code == 1 {
			// Every differing unit reported, over several report batches.
			m := regexp.MustCompile(`(\d+) of 16384 units differ`).FindStringSubmatch(out)
			require.NotNil(t, m)
			n, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			require.Greater(t, n, reportBatch)
			require.Equal(t, n, len(regexp.MustCompile(`(?m)^unit \S+: first difference at event`).FindAllString(out, -1)))
		}
	}
}
