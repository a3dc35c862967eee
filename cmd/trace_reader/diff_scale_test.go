package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// Hostile-test finding: diff time grew quadratically with the units (a
// rescan of every pending unit after each block; the report re-planning
// the query over every block for each differing unit). Before the fix, on
// the test host: 16,384 units, 150,000 events, equal files (per-unit vs
// one-stream layout) 3.7 s, differing files (another seed) 50 s; with
// 32,768 units and 300,000 events 11 s and 143 s. After it 0.15 s and
// 0.7 s: BenchmarkDiffScalesWithUnits measures it (`go test -run NONE
// -bench DiffScales ./cmd/trace_reader`); this test checks the answers.
func TestDiffScalesWithUnits(t *testing.T) {
	// Under the race detector (slower here a hundredfold: 113 s on the
	// test host) the files are smaller, still with more differing units
	// than one report batch (two batches), about ten events per unit as
	// at full size. make test's stage 5 runs the full size without it.
	units, events := 16384, 150_000
	if raceEnabled {
		units, events = reportBatch+256, 45_000
	}
	a, b, c := diffScaleFiles(t, units, events)
	for _, tc := range []struct {
		b    string
		code int
	}{{b, 0}, {c, 1}} {
		code, out, errOut := runTool("diff", a, tc.b)
		require.Equal(t, tc.code, code, errOut)
		if tc.code == 1 {
			// Every differing unit reported, over several report batches.
			n, reported := diffReportCounts(t, out, units)
			require.Greater(t, n, reportBatch)
			require.Equal(t, n, reported)
		}
	}
}

// diffReportCounts returns the n of the report's summary line "n of units
// units differ" and the number of its lines "unit NAME: first difference at
// event". Line by line with strings.Cut, not with regexps: the report is
// megabytes (5.8 MB for 6,144 units), and scanning it with the two regexps
// took 18 s of this test's 42 s under the race detector, 40% of it.
func diffReportCounts(t *testing.T, out string, units int) (n, reported int) {
	t.Helper()
	summary := " of " + strconv.Itoa(units) + " units differ"
	n = -1
	for line := range strings.Lines(out) {
		if num, _, ok := strings.Cut(line, summary); ok && n < 0 {
			var err error
			n, err = strconv.Atoi(num)
			require.NoError(t, err, "summary line %q", line)
		}
		if rest, ok := strings.CutPrefix(line, "unit "); ok {
			if name, _, ok := strings.Cut(rest, ": first difference at event"); ok && name != "" && !strings.ContainsAny(name, " \t") {
				reported++
			}
		}
	}
	require.GreaterOrEqual(t, n, 0, "no line %q in the report", "N"+summary)
	return n, reported
}

// diffScaleFiles writes three files of the given units and events: a
// (per-unit blocks of 4 KiB), b (the same events in one stream, the
// original writer's layout) and c (other events, a's layout).
func diffScaleFiles(tb testing.TB, units, events int) (a, b, c string) {
	dir := tb.TempDir()
	write := func(name string, seed uint64, o ctracetest.Options) string {
		data, err := ctracetest.Build(ctracetest.W1Schema(units), ctracetest.W1Events(events, units, seed), o)
		require.NoError(tb, err)
		p := filepath.Join(dir, name)
		require.NoError(tb, os.WriteFile(p, data, 0o644))
		return p
	}
	return write("a.ctrace", 1, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true}),
		write("b.ctrace", 1, ctracetest.Options{NoUnitSets: true}),
		write("c.ctrace", 2, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
}

// BenchmarkDiffScalesWithUnits: one diff of 16,384-unit files, equal and
// differing. Quadratic code took 3.7 s and 50 s here; near-linear, 0.15 s
// and 0.7 s on the development machine.
func BenchmarkDiffScalesWithUnits(b *testing.B) {
	fa, fb, fc := diffScaleFiles(b, 16384, 150_000)
	for _, bc := range []struct {
		name, other string
		code        int
	}{{"equal", fb, 0}, {"differing", fc, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code, _, errOut := runTool("diff", fa, bc.other); code != bc.code {
					b.Fatalf("diff: exit %d, want %d: %s", code, bc.code, errOut)
				}
			}
		})
	}
}
