package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
)

var kanataPlain = chronon.MustFormat1[uint64]("kanata cmd test value={}")

// export --format kanata writes Konata's log; a trace without flows and
// spans is exit status 1 with one line naming the file and what is missing.
func TestExportKanata(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "pipe.ctrace")
	tr, err := chronon.Create(trace, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	require.NoError(t, pipesim.RunHazards(tr, 60))
	require.NoError(t, tr.Close())
	out := filepath.Join(dir, "p.kanata")
	code, stdout, stderr := runTool("export", "--format", "kanata", trace, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, out+"\n", stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "Kanata\t0004\nC=\t0\n"))
	require.Equal(t, 60, strings.Count(string(b), "\nI\t"))
	require.Equal(t, 60, strings.Count(string(b), "\nR\t"))
	flushes := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "R\t") && strings.HasSuffix(l, "\t1") {
			flushes++
		}
	}
	require.Equal(t, 6, flushes, "2 of every 20 slots are squashed: R ... 1")
	deps := strings.Count(string(b), "\nW\t")
	require.Positive(t, deps, "pipesim -hazards records register dependencies")

	// -v says what the log holds, in the counts the file has.
	code, _, stderr = runTool("export", "--format", "kanata", "-v", trace, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, fmt.Sprintf("Kanata: 60 instructions (54 retired, 6 flushed), %d dependencies (0 left out", deps))

	plain := filepath.Join(dir, "plain.ctrace")
	tr, err = chronon.Create(plain, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.x")
	require.NoError(t, err)
	kanataPlain.Emit(u, 3, 1)
	require.NoError(t, tr.Close())
	code, _, stderr = runTool("export", "--format", "kanata", plain, "-o", filepath.Join(dir, "plain.kanata"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, plain)
	require.Contains(t, stderr, "neither flows nor spans")
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	_, err = os.Stat(filepath.Join(dir, "plain.kanata"))
	require.True(t, os.IsNotExist(err))

	code, _, stderr = runTool("export", "--format", "konata", trace, "-o", out)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "kanata")
}
