//go:build cgo && unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// The Parquet export under a file size limit: DuckDB writes on its own
// threads, where SIGXFSZ killed the process (status 153) and left the
// temporary directory. Now the write fails with EFBIG, the export exits 1
// saying "file too large", and nothing is left beside the output.
func TestParquetExportFileTooLarge(t *testing.T) {
	for _, dataset := range []bool{false, true} {
		name := map[bool]string{false: "o", true: "dataset"}[dataset]
		t.Run(name, func(t *testing.T) {
			out, code, stderr := ctracetest.RunUnderFileSizeLimit(t, 64<<10, func(out string) int {
				flag := "-o"
				if dataset {
					flag = "--dataset"
				}
				return run([]string{"export", "--format", "parquet", flag, out + ".pq", ref("multiblock.ctrace")}, os.Stdout, os.Stderr)
			})
			require.Equal(t, 1, code, "stderr: %s", stderr)
			require.Contains(t, strings.ToLower(stderr), "file too large")
			require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
			ents, err := os.ReadDir(filepath.Dir(out))
			require.NoError(t, err)
			for _, e := range ents {
				if dataset && e.Name() == filepath.Base(out)+".pq" {
					sub, err := os.ReadDir(filepath.Join(filepath.Dir(out), e.Name()))
					require.NoError(t, err)
					for _, s := range sub {
						require.True(t, strings.HasSuffix(s.Name(), ".lock"), "left in the dataset: %s", s.Name())
					}
					continue
				}
				t.Errorf("left behind: %s", e.Name())
			}
		})
	}
}

// -o LINK, a symlink to an empty directory: the export goes where the link
// points, as -o FILE writes through a link, and the link stays (it was
// replaced by the export's directory). The directory's mode is 0777 less
// the umask, as mkdir makes one (it was 0700 whatever the umask).
func TestParquetExportThroughSymlinkAndUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("real", link))
	code, stdout, stderr := runTool("export", "--format", "parquet", "-o", link, ref("mixed-small.ctrace"))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, link+"\n", stdout)
	li, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, li.Mode()&os.ModeSymlink, "the link stays a link")
	_, err = os.Stat(filepath.Join(real, "events", "part-0.parquet"))
	require.NoError(t, err, "the tables are in the link's target")
	st, err := os.Stat(real)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 2, "nothing else beside them")

	// A new directory: the same mode.
	code, _, stderr = runTool("export", "--format", "parquet", "-o", filepath.Join(dir, "new"), ref("mixed-small.ctrace"))
	require.Equal(t, 0, code, stderr)
	st, err = os.Stat(filepath.Join(dir, "new"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm())
}
