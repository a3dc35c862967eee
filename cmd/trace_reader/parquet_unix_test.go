//go:build cgo && unix

package main

import (
	"os"
	"path/filepath"
	"strings"
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
