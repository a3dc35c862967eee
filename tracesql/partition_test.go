package tracesql_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// stageTables makes a stage directory holding the given tables, each with
// one file whose content is tag.
func stageTables(t *testing.T, dir, tag string, tables ...string) string {
	t.Helper()
	stage, err := os.MkdirTemp(dir, ".stage-")
	require.NoError(t, err)
	for _, tb := range tables {
		require.NoError(t, os.Mkdir(filepath.Join(stage, tb), 0o777))
		require.NoError(t, os.WriteFile(filepath.Join(stage, tb, "part-0.parquet"), []byte(tag), 0o666))
	}
	return stage
}

func partFile(t *testing.T, dir, table, label string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, table, "trace="+label, "part-0.parquet"))
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(b)
}

// A publish puts each table's partition in place, replaces the label's
// old ones whole, removes those of tables the new export has not, and
// leaves other labels alone.
func TestPublishPartition(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, tracesql.PublishPartition(dir, "rank0", stageTables(t, dir, "a0", "events", "fetch_", "old")))
	require.NoError(t, tracesql.PublishPartition(dir, "rank1", stageTables(t, dir, "a1", "events", "fetch_", "old")))
	stage := stageTables(t, dir, "b0", "events", "fetch_", "new")
	require.NoError(t, tracesql.PublishPartition(dir, "rank0", stage))

	require.Equal(t, "b0", partFile(t, dir, "events", "rank0"))
	require.Equal(t, "b0", partFile(t, dir, "fetch_", "rank0"))
	require.Equal(t, "b0", partFile(t, dir, "new", "rank0"))
	require.Equal(t, "", partFile(t, dir, "old", "rank0"), "a table the new export has not")
	require.Equal(t, "a1", partFile(t, dir, "events", "rank1"))
	require.Equal(t, "a1", partFile(t, dir, "old", "rank1"))
	ents, err := os.ReadDir(stage)
	require.NoError(t, err)
	require.Empty(t, ents, "the stage is empty after a publish")
}

// A label that cannot name a directory (or would be hidden) is refused.
func TestPublishPartitionLabels(t *testing.T) {
	dir := t.TempDir()
	for _, label := range []string{"", ".", "..", "a/b", `a\b`, ".hidden"} {
		err := tracesql.PublishPartition(dir, label, stageTables(t, dir, "x", "events"))
		require.ErrorContains(t, err, "cannot name a partition directory", "%q", label)
	}
	_, err := os.Stat(filepath.Join(dir, "events"))
	require.True(t, os.IsNotExist(err))
}

// A label's partition directory is percent-encoded as DuckDB's writer
// encodes a Hive value: what a path or the key=value syntax cannot hold
// (= % / space, any byte outside A-Z a-z 0-9 - _ . ~) becomes %XX.
func TestPartitionDir(t *testing.T) {
	for label, want := range map[string]string{
		"rank3":       "trace=rank3",
		"run-1_a.b~c": "trace=run-1_a.b~c",
		"a=b":         "trace=a%3Db",
		"50%":         "trace=50%25",
		"a b/c":       "trace=a%20b%2Fc",
		"é":           "trace=%C3%A9",
		"x%3Dy":       "trace=x%253Dy",
	} {
		require.Equal(t, want, tracesql.PartitionDir(label), "%q", label)
	}
}
