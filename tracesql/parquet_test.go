//go:build cgo

package tracesql_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// TestExportParquet: every table's Parquet files hold the table's rows
// (events without message; units, formats, categories, metadata and
// blocks too), cycle is sorted within each unit of an event table, and the
// files are zstd with unit dictionary-encoded; a --cycles selection reaches
// the export.
func TestExportParquet(t *testing.T) {
	for _, name := range []string{"w1", "mixed", "pipe"} {
		t.Run(name, func(t *testing.T) {
			db := open(t, []string{trace(t, rowsTrace(name))})
			dir := t.TempDir()
			files, err := db.ExportParquet(dir)
			require.NoError(t, err)
			n := 0
			for _, tb := range db.Tables() {
				n++ // every table, the schema's and the footer's too
				pq := fmt.Sprintf("read_parquet('%s')", filepath.Join(dir, tb.Name, "*.parquet"))
				cols := "*"
				if tb.Name == "events" {
					cols = "* EXCLUDE (message)"
				}
				// Same rows: nothing in one that is not in the other, same count.
				q := fmt.Sprintf("SELECT (SELECT count(*) FROM %[1]s), (SELECT count(*) FROM %[2]s), (SELECT count(*) FROM (SELECT %[3]s FROM %[1]s EXCEPT ALL SELECT * FROM %[2]s)), (SELECT count(*) FROM (SELECT * FROM %[2]s EXCEPT ALL SELECT %[3]s FROM %[1]s))",
					tb.Name, pq, cols)
				got := one(t, db, q)
				var a, b, c, d int
				fmt.Sscanf(got, "%d|%d|%d|%d", &a, &b, &c, &d)
				require.Equal(t, a, b, "%s: rows", tb.Name)
				require.Zero(t, c+d, "%s: rows differ", tb.Name)
				if tb.Format != "" || tb.Name == "events" || tb.Name == "counters" {
					require.Equal(t, "0", one(t, db, fmt.Sprintf(`SELECT count(*) FROM (SELECT cycle < lag(cycle) OVER (PARTITION BY unit ORDER BY file_row_number) AS back FROM read_parquet('%s', file_row_number = true)) WHERE back`,
						filepath.Join(dir, tb.Name, "*.parquet"))), "%s: cycle sorted within a unit", tb.Name)
				}
			}
			require.Len(t, files, n)
			// Dictionary-encoded: RLE_DICTIONARY (DuckDB's name when it wrote
			// an ENUM's dictionary) or PLAIN_DICTIONARY (a VARCHAR's).
			require.Regexp(t, `^ZSTD\|(RLE|PLAIN)_DICTIONARY$`, one(t, db, fmt.Sprintf(`SELECT DISTINCT compression, encodings FROM parquet_metadata('%s') WHERE path_in_schema = 'unit'`, filepath.Join(dir, "events", "*.parquet"))))
		})
	}

	db := open(t, []string{trace(t, "w1")}, tracesql.WithCycles(100_000, 120_000))
	dir := t.TempDir()
	_, err := db.ExportParquet(dir)
	require.NoError(t, err)
	want := one(t, db, "SELECT count(*), min(cycle), max(cycle) FROM events")
	require.Equal(t, want, one(t, db, fmt.Sprintf("SELECT count(*), min(cycle), max(cycle) FROM read_parquet('%s')", filepath.Join(dir, "events", "*.parquet"))))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(entries), 5)
}

// The Parquet export runs on as many DuckDB threads as their row groups
// (parquetThreadBytes each) fit the memory budget, at least one, never
// more than the database has, and gives the database its threads back.
func TestParquetThreadsFitTheBudget(t *testing.T) {
	path := trace(t, "w1")
	threads := func(db *tracesql.DB) string { return one(t, db, "SELECT current_setting('threads')") }
	for _, c := range []struct {
		budget  int64
		threads int
		want    int64
	}{{128 << 20, 4, 1}, {1 << 20, 4, 1}, {256 << 20, 4, 2}, {1 << 30, 4, 4}, {1 << 30, 2, 2}} {
		db := open(t, []string{path}, tracesql.WithMemoryBudget(c.budget), tracesql.WithThreads(c.threads))
		n, restore, err := tracesql.ParquetThreads(db)
		require.NoError(t, err)
		require.Equal(t, c.want, n, "budget %d, %d threads", c.budget, c.threads)
		require.Equal(t, fmt.Sprint(c.want), threads(db))
		restore()
		require.Equal(t, fmt.Sprint(c.threads), threads(db))
	}
	db := open(t, []string{path}, tracesql.WithMemoryBudget(128<<20), tracesql.WithThreads(3))
	_, err := db.ExportParquet(t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "3", threads(db), "the export gives the threads back")
}

// TestDatasetLabelsReadBack: labels with characters a Hive path encodes
// (= % space) publish into percent-encoded partition directories, and the
// dataset read back (DuckDB's hive_partitioning decodes them) names each
// trace by its label, with its rows.
func TestDatasetLabelsReadBack(t *testing.T) {
	db := open(t, []string{trace(t, "mixed")})
	n := one(t, db, "SELECT count(*) FROM events")
	dir := t.TempDir()
	labels := []string{"a=b", "50%", "x%3Dy", "two words"}
	for _, label := range labels {
		stage, err := os.MkdirTemp(dir, ".stage-")
		require.NoError(t, err)
		_, err = db.ExportParquet(stage)
		require.NoError(t, err)
		require.NoError(t, tracesql.PublishPartition(dir, label, stage))
		_, err = os.Stat(filepath.Join(dir, "events", tracesql.PartitionDir(label)))
		require.NoError(t, err)
	}
	ds := open(t, []string{dir})
	var want []string
	for _, label := range []string{"50%", "a=b", "two words", "x%3Dy"} { // ORDER BY trace
		want = append(want, label+"|"+n)
	}
	require.Equal(t, want, rows(t, ds, "SELECT trace, count(*) FROM events GROUP BY trace ORDER BY trace"))
}

// TestDatasetHasTheSchemaTables: a dataset of two runs has the tables a
// file has beside its events (units, formats, categories, metadata,
// blocks), with a trace column: the rows the two files opened together
// give.
func TestDatasetHasTheSchemaTables(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for r, w := range []string{"w1", "mixed"} {
		p := filepath.Join(t.TempDir(), w+".ctrace")
		_, err := workload.Run(w, p, 5000, 4, uint64(r+1), chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", fmt.Sprint(r)), chronon.WithMetadata("workload", w))
		require.NoError(t, err)
		paths = append(paths, p)
	}
	for r, p := range paths {
		db := open(t, []string{p})
		stage, err := os.MkdirTemp(dir, ".stage-")
		require.NoError(t, err)
		_, err = db.ExportParquet(stage)
		require.NoError(t, err)
		require.NoError(t, tracesql.PublishPartition(dir, fmt.Sprint("rank", r), stage)) // its label, as sql names it
	}
	files := open(t, paths)
	ds := open(t, []string{dir})
	for _, table := range []string{"units", "formats", "metadata", "blocks"} {
		q := "SELECT * FROM " + table + " ORDER BY ALL"
		want := rows(t, files, q)
		require.NotEmpty(t, want, table)
		require.Contains(t, want[0], "|", table)
		require.True(t, strings.HasPrefix(want[0], "rank0|"), "%s: a trace column first: %s", table, want[0])
		require.Equal(t, want, rows(t, ds, q), table)
		require.Equal(t, "2", one(t, ds, "SELECT count(DISTINCT trace) FROM "+table), table)
	}
	q := "SELECT * FROM categories ORDER BY ALL"
	require.Equal(t, rows(t, files, q), rows(t, ds, q), "categories (the traces may have none)")
	var names []string
	for _, tb := range ds.Tables() {
		names = append(names, tb.Name)
	}
	for _, table := range []string{"units", "formats", "categories", "metadata", "blocks"} {
		require.Contains(t, names, table)
	}
}
