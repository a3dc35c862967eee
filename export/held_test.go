package export_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var heldSpan = chronon.MustSpan("held test open")

// heldTrace writes n spans on one unit: begun and never ended on lane 0,
// or (lanes) each on a lane of its own, begun and ended.
func heldTrace(t *testing.T, n int, lanes bool) string {
	path := filepath.Join(t.TempDir(), "held.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	for i := range n {
		if lanes {
			heldSpan.Begin(u, uint64(i), uint32(i), 0)
			heldSpan.End(u, uint64(i)+1, uint32(i), 0)
		} else {
			heldSpan.Begin(u, uint64(i), 0, 0)
		}
	}
	require.NoError(t, tr.Close())
	return path
}

// What a timeline export holds grows with the spans open at once and the
// tracks, not with the trace: spans that begin and never end (2.2 million
// took 272 MB against a 64 MiB budget) or a lane per span grew without
// bound. Past a quarter of the reader's memory budget the export stops
// with an error naming the file and the budget; a budget that holds them
// exports every span.
func TestExportKeepsOpenSpansAndTracksInTheBudget(t *testing.T) {
	const n = 20_000 // 20k open spans (~1 MB of stacks) or 20k tracks (~3 MB): past a quarter of 1 MiB
	for _, lanes := range []bool{false, true} {
		path := heldTrace(t, n, lanes)
		for _, format := range []string{export.FormatPerfetto, export.FormatChromeJSON} {
			small, err := mmapio.Open(path, mmapio.WithMemoryBudget(1<<20))
			require.NoError(t, err)
			_, err = export.Export(small, mmapio.Query{}, filepath.Join(t.TempDir(), "out"), export.WithFormat(format))
			require.NoError(t, small.Close())
			require.Error(t, err, "lanes %v, %s", lanes, format)
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, "quarter of the memory budget (1 MiB)")
			// What it holds is past a quarter of 1 MiB: never "0 MiB".
			require.Regexp(t, `holds [1-9][0-9]* (KiB|MiB) of spans`, err.Error())

			enough, err := mmapio.Open(path)
			require.NoError(t, err)
			res, err := export.Export(enough, mmapio.Query{}, filepath.Join(t.TempDir(), "out"), export.WithFormat(format))
			require.NoError(t, enough.Close())
			require.NoError(t, err, "lanes %v, %s", lanes, format)
			require.Equal(t, uint64(n), res.Spans, "lanes %v, %s", lanes, format)
		}
	}
}

var heldTask = chronon.MustAsyncSpan("held test task")

// Async spans that begin and never end go through the pre-pass that counts
// each span's children before the export writes anything: it read the
// whole trace, its open spans unbounded (2 million took 225 MB and 9 s at
// --memory 16MiB before the error), and only then did the export stop. It
// now stops within its share of the budget as the export itself does.
func TestExportPrepassKeepsOpenAsyncSpansInTheBudget(t *testing.T) {
	const n = 300_000
	path := filepath.Join(t.TempDir(), "tasks.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	for i := range n {
		heldTask.Begin(u, uint64(i), uint64(i)+1, 0)
	}
	require.NoError(t, tr.Close())
	for _, format := range []string{export.FormatPerfetto, export.FormatChromeJSON} {
		small, err := mmapio.Open(path, mmapio.WithMemoryBudget(1<<20))
		require.NoError(t, err)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = export.Export(small, mmapio.Query{}, filepath.Join(t.TempDir(), "out"), export.WithFormat(format))
		runtime.ReadMemStats(&after)
		require.NoError(t, small.Close())
		require.Error(t, err, format)
		require.ErrorContains(t, err, path)
		require.ErrorContains(t, err, "quarter of the memory budget (1 MiB)")
		// The reader's blocks and buffers, and the state up to the first
		// check past the limit: a few MiB, not the 300,000 spans' tens.
		alloc := after.TotalAlloc - before.TotalAlloc
		require.Less(t, alloc, uint64(8<<20), "%s: the export allocated %d MiB at a 1 MiB budget", format, alloc>>20)
	}
}

// Spans open at a file split are closed and begun again in the next file.
// When they alone take more than the file size limit, every next cycle
// split again: a file per cycle, each holding all the open spans (200,000
// spans that never end, a 256 KB trace, wrote 4,000 files and 400 MB in
// two minutes at --max-file-size 1000000, and went on). A file now takes
// the limit's worth of events beyond what it begins again, so the files
// are as many as the events need.
func TestExportSplitDoesNotRepeatOpenSpansPerCycle(t *testing.T) {
	const n, limit = 3000, 8 << 10 // 3,000 open spans: several times the limit
	path := heldTrace(t, n, false)
	for _, format := range []string{export.FormatPerfetto, export.FormatChromeJSON} {
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		whole, err := export.Export(r, mmapio.Query{}, filepath.Join(t.TempDir(), "whole"), export.WithFormat(format), export.WithMaxFileBytes(0))
		require.NoError(t, err)
		fi, err := os.Stat(whole.Files[0])
		require.NoError(t, err)
		res, err := export.Export(r, mmapio.Query{}, filepath.Join(t.TempDir(), "out"), export.WithFormat(format), export.WithMaxFileBytes(limit))
		require.NoError(t, r.Close())
		require.NoError(t, err, format)
		require.Equal(t, whole.Events, res.Events, format)
		require.Greater(t, len(res.Files), 1, format)
		require.LessOrEqual(t, len(res.Files), int(fi.Size()/limit)+2, "%s: %d files for %d bytes of events at a %d-byte limit", format, len(res.Files), fi.Size(), limit)
	}
}
