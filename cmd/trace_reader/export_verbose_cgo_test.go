//go:build cgo

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Parquet export's -v summary counts the complete spans its spans
// tables left out (ending before they begin), as the other formats' does.
func TestParquetExportVerboseSaysImpossibleSpans(t *testing.T) {
	path := impossibleSpanTrace(t)
	code, _, errOut := runTool("export", "-v", "--format", "parquet", "-o", filepath.Join(t.TempDir(), "pq"), path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "export: 1 complete spans ending before they begin, left out of the spans tables\n")
}
