//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// info, dump and stats on a FIFO used to hang in open, waiting for a
// writer. They fail at once with one line naming the file (exit 1).
func TestFIFOInput(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.ctrace")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	t.Cleanup(func() { // release an open that is stuck (only before the fix)
		if w, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	for _, cmd := range []string{"info", "dump", "stats", "filter", "export", "recover"} {
		type result struct {
			code   int
			errOut string
		}
		done := make(chan result, 1)
		go func() {
			args := []string{cmd, fifo}
			if cmd == "export" || cmd == "recover" {
				args = append(args, "-o", filepath.Join(t.TempDir(), "out"))
			}
			code, _, errOut := runTool(args...)
			done <- result{code, errOut}
		}()
		select {
		case r := <-done:
			require.Equal(t, 1, r.code, cmd+": "+r.errOut)
			require.Equal(t, 1, strings.Count(r.errOut, "\n"), r.errOut)
			require.Contains(t, r.errOut, fifo+": not a regular file (a FIFO)")
		case <-time.After(5 * time.Second):
			t.Fatalf("trace_reader %s on a FIFO still runs after 5 s", cmd)
		}
	}
}
