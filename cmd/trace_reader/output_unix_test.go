//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A FIFO output is written directly (it cannot be renamed into place): a
// reader at the other end gets the whole dump, and the FIFO stays a FIFO.
func TestOutputFIFO(t *testing.T) {
	for _, cmd := range []string{"dump", "export"} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "out")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		got := make(chan []byte)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- b
		}()
		args := []string{cmd, ref("raw.ctrace"), "-o", fifo}
		if cmd == "export" {
			args = append(args, "--max-file-size", "1000")
		}
		code, _, errOut := runTool(args...)
		require.Equal(t, 0, code, "%s: %s", cmd, errOut)
		b := <-got
		if cmd == "dump" {
			require.Equal(t, refDump(t, "raw.dump.txt.gz"), string(b))
		} else {
			require.Greater(t, len(b), 1000, "one stream, not split")
		}
		fi, err := os.Lstat(fifo)
		require.NoError(t, err)
		require.NotZero(t, fi.Mode()&os.ModeNamedPipe)
		require.Equal(t, []string{"out"}, names(t, dir))
	}
}
