package export

import (
	"path/filepath"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
)

func w1Trace(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "w1.ctrace")
	if _, err := workload.Run("w1", path, n, 16, 1, chronon.WithAutoMetadata(false)); err != nil {
		tb.Fatal(err)
	}
	return path
}
