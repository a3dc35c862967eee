package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// export and stats draw the progress bar on a terminal (here a buffer the
// test declares one) and erase it at the end; elsewhere they stay silent.
func TestProgressOnTerminal(t *testing.T) {
	// The bar is drawn at every 65,536th event (the first time at once,
	// then at most every 100 ms). Under the race detector, which slows the
	// six runs of the commands tenfold, 70,000 events: one draw, 37
	// blocks. make test's stage 5 runs 140,000 without it.
	events := 140000
	if raceEnabled {
		events = 70000
	}
	b, err := ctracetest.Build(ctracetest.W1Schema(16), ctracetest.W1Events(events, 16, 1), ctracetest.Options{BlockSize: 65536, Compress: true})
	require.NoError(t, err)
	dir := t.TempDir()
	in := filepath.Join(dir, "w1.ctrace")
	require.NoError(t, os.WriteFile(in, b, 0o644))

	saved := drawsOn
	t.Cleanup(func() { drawsOn = saved })
	for _, args := range [][]string{
		{"export", in, "-o", filepath.Join(dir, "w1.pftrace")},
		{"export", "--format", "chrome-json", in, "-o", filepath.Join(dir, "w1.json")},
		{"stats", in},
	} {
		for _, term := range []bool{false, true} {
			drawsOn = func(io.Writer) bool { return term }
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(args, &stdout, &stderr), "%q: %s", args, stderr.String())
			if !term {
				require.Empty(t, stderr.String(), "%q", args)
				continue
			}
			require.Contains(t, stderr.String(), "%  65536 events", "%q", args)
			require.True(t, strings.HasPrefix(stderr.String(), "\r["), "%q", args)
			require.True(t, strings.HasSuffix(stderr.String(), strings.Repeat(" ", 60)+"\r"), "%q: the bar is erased", args)
		}
	}
}
