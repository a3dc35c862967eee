//go:build cgo

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
)

// rankTraces writes n W1 traces of ranks 0..n-1 (their metadata's rank),
// each with its own number of events.
func rankTraces(t *testing.T, dir string, n int) []string {
	t.Helper()
	var paths []string
	for r := range n {
		p := filepath.Join(dir, fmt.Sprintf("run%d.ctrace", r))
		_, err := workload.Run("w1", p, 2000+300*r, 4, uint64(r+1), chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", fmt.Sprint(r)))
		require.NoError(t, err)
		paths = append(paths, p)
	}
	return paths
}

// datasetQueries are asked of the dataset and of the traces: equal answers.
var datasetQueries = []string{
	"SELECT trace, count(*) AS n, sum(cycle) AS s, min(cycle) AS lo, max(cycle) AS hi FROM events GROUP BY ALL ORDER BY ALL",
	"SELECT trace, unit, format, count(*) AS n FROM events GROUP BY ALL ORDER BY ALL",
	"SELECT trace, count(*) AS n, count(*) FILTER (WHERE taken) AS taken, sum(pc) AS pcs FROM fetch_ GROUP BY ALL ORDER BY ALL",
	"SELECT trace, unit, count(*) AS n, sum(dst) AS d FROM decode WHERE cycle BETWEEN 500 AND 9000 GROUP BY ALL ORDER BY ALL",
	"SELECT count(*) AS n FROM fetch_ f JOIN events e USING (trace, cycle, unit_id) WHERE e.format = 'fetch_'",
	"SELECT count(DISTINCT trace) AS traces FROM events WHERE trace = 'rank3'",
	// The tables of the schema and the footer, each run's under its label.
	"SELECT * FROM units ORDER BY ALL",
	"SELECT * FROM formats ORDER BY ALL",
	"SELECT * FROM metadata ORDER BY ALL",
	"SELECT * FROM blocks ORDER BY ALL",
}

// `export --format parquet --dataset DIR` from 8 ranks at once makes one
// dataset, DIR/<table>/trace=rank<N>/, that `sql DIR` reads with the
// answers `sql` gives on the 8 files.
func TestExportDatasetConcurrently(t *testing.T) {
	dir := t.TempDir()
	paths := rankTraces(t, dir, 8)
	ds := filepath.Join(dir, "ds")
	bin := toolBinary(t)
	var wg sync.WaitGroup
	errs := make([]error, len(paths))
	outs := make([][]byte, len(paths))
	for i, p := range paths {
		wg.Go(func() {
			outs[i], errs[i] = exec.Command(bin, "export", "--format", "parquet", "--dataset", ds, p).CombinedOutput()
		})
	}
	wg.Wait()
	for i := range paths {
		require.NoError(t, errs[i], "%s", outs[i])
		require.Equal(t, ds+"\n", string(outs[i]))
	}
	for _, table := range []string{"events", "fetch_", "decode", "spans", "counters", "flows"} {
		ents, err := os.ReadDir(filepath.Join(ds, table))
		require.NoError(t, err)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		require.Equal(t, []string{"trace=rank0", "trace=rank1", "trace=rank2", "trace=rank3", "trace=rank4", "trace=rank5", "trace=rank6", "trace=rank7"}, names, table)
	}
	top, err := os.ReadDir(ds)
	require.NoError(t, err)
	for _, e := range top { // nothing left of the exports but the locks
		require.True(t, !strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".lock"), e.Name())
	}
	for _, q := range datasetQueries {
		code, want, errOut := runTool(append([]string{"sql", "--csv"}, append(paths, "-c", q)...)...)
		require.Equal(t, 0, code, errOut)
		code, got, errOut := runTool("sql", "--csv", ds, "-c", q)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, got, q)
		require.Greater(t, strings.Count(got, "\n"), 1, q)
	}
}

// Re-exporting a rank replaces its partitions whole: a w1 trace of rank 2
// over a task trace of rank 2 leaves only its rows under trace=rank2, and
// the partitions of tables it has not (the task formats) are gone.
func TestExportDatasetReplacesAPartition(t *testing.T) {
	dir := t.TempDir()
	paths := rankTraces(t, dir, 3)
	before := filepath.Join(dir, "before.ctrace")
	_, err := workload.Run("tasks", before, 500, 2, 9, chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", "2"))
	require.NoError(t, err)
	ds := filepath.Join(dir, "ds")
	code, _, errOut := runTool("export", "--format", "parquet", "--dataset", ds, paths[0], paths[1], before)
	require.Equal(t, 0, code, errOut)
	rank2Tables := func() []string {
		var tables []string
		ents, err := os.ReadDir(ds)
		require.NoError(t, err)
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(ds, e.Name(), "trace=rank2")); err == nil {
				tables = append(tables, e.Name())
			}
		}
		return tables
	}
	rank2Events := func() string {
		code, n, errOut := runTool("sql", "--csv", ds, "-c", "SELECT count(*) FROM events WHERE trace = 'rank2'")
		require.Equal(t, 0, code, errOut)
		return n
	}
	tasksTables, tasksEvents := rank2Tables(), rank2Events()
	require.Contains(t, tasksTables, "wavefront_begin")

	code, _, errOut = runTool("export", "--format", "parquet", "--dataset", ds, paths[2])
	require.Equal(t, 0, code, errOut)
	for _, q := range datasetQueries {
		code, want, errOut := runTool(append([]string{"sql", "--csv"}, append(paths, "-c", q)...)...)
		require.Equal(t, 0, code, errOut)
		code, got, errOut := runTool("sql", "--csv", ds, "-c", q)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, got, q)
	}
	_, err = os.Stat(filepath.Join(ds, "wavefront_begin", "trace=rank2"))
	require.True(t, os.IsNotExist(err), "rank 2's old partition of a table it no longer has is removed: %v", err)

	// Two exporters of rank 2 at once: one of them wins, whole.
	w1Tables := rank2Tables()
	bin := toolBinary(t)
	var wg sync.WaitGroup
	var outs [2][]byte
	var errs [2]error
	for i, p := range []string{before, paths[2]} {
		wg.Go(func() {
			outs[i], errs[i] = exec.Command(bin, "export", "--format", "parquet", "--dataset", ds, p).CombinedOutput()
		})
	}
	wg.Wait()
	for i := range errs {
		require.NoError(t, errs[i], "%s", outs[i])
	}
	got, n := rank2Tables(), rank2Events()
	if !slices.Equal(got, w1Tables) || n != "count_star()\n2600\n" {
		require.Equal(t, tasksTables, got, "rank 2's partitions are one export's, whole")
		require.Equal(t, tasksEvents, n)
	}
}

// A dataset is written with --format parquet only, and not with -o.
func TestExportDatasetUsage(t *testing.T) {
	code, _, errOut := runTool("export", "--dataset", "ds", "x.ctrace")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--dataset writes Parquet: give --format parquet")
	code, _, errOut = runTool("export", "--format", "parquet", "--dataset", "ds", "-o", "pq", "x.ctrace")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "exclude each other")
}

// sql DIR reads an -o export too (no trace column: one trace), says what
// it cannot do with a dataset, and refuses a directory of no tables.
func TestSQLOnExportDirectory(t *testing.T) {
	dir := t.TempDir()
	paths := rankTraces(t, dir, 1)
	pq := filepath.Join(dir, "pq")
	code, _, errOut := runTool("export", "--format", "parquet", "-o", pq, paths[0])
	require.Equal(t, 0, code, errOut)
	q := "SELECT count(*) AS n, sum(cycle) AS s FROM events"
	code, want, errOut := runTool("sql", "--csv", paths[0], "-c", q)
	require.Equal(t, 0, code, errOut)
	code, got, errOut := runTool("sql", "--csv", pq, "-c", q)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)
	// Every table of the trace (the schema's and the footer's too), as
	// views on their files.
	code, out, errOut := runTool("sql", pq, "-c", ".tables")
	require.Equal(t, 0, code, errOut)
	code, traceTables, errOut := runTool("sql", paths[0], "-c", ".tables")
	require.Equal(t, 0, code, errOut)
	wantTables := strings.Fields(traceTables)
	require.Contains(t, wantTables, "metadata")
	slices.Sort(wantTables)
	gotTables := strings.Fields(out)
	slices.Sort(gotTables)
	require.Equal(t, wantTables, gotTables)

	code, _, errOut = runTool("sql", "--cycles", "0-100", pq, "-c", q)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "a dataset is read whole")
	code, _, errOut = runTool("sql", pq, paths[0], "-c", q)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is a directory")
	code, _, errOut = runTool("sql", t.TempDir(), "-c", q)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no table of Parquet files")

	// A dataset export into it would mix the two layouts: refused.
	code, _, errOut = runTool("export", "--format", "parquet", "--dataset", pq, paths[0])
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "holds an export's tables")
	_, err := os.Stat(filepath.Join(pq, "events", "trace=rank0"))
	require.True(t, os.IsNotExist(err))
}
