//go:build unix

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
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

// An export interrupted by SIGTERM (or ^C) dies of the signal and leaves
// neither the output nor its temporary directory.
func TestInterruptedExportLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: builds the tool and writes a 3M-event trace")
	}
	bin := toolBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "w1.ctrace")
	_, err := workload.Run("w1", in, 3_000_000, 16, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin, "export", in, "-o", filepath.Join(dir, "out.pftrace"))
		require.NoError(t, cmd.Start())
		deadline := time.Now().Add(20 * time.Second)
		for !slices.ContainsFunc(names(t, dir), func(n string) bool { return strings.HasPrefix(n, ".out.pftrace.tmp-") }) {
			require.True(t, time.Now().Before(deadline), "no temporary directory appeared")
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "the export must not have finished")
		ws := ee.Sys().(syscall.WaitStatus)
		require.True(t, ws.Signaled() && ws.Signal() == sig, "%v: %v", sig, ws)
		require.Equal(t, []string{"w1.ctrace"}, names(t, dir), "%v", sig)
	}
}

// An export to /dev/stdout is the export alone: the list of files written,
// printed after a regular export, must not trail the stream.
func TestExportToDevStdoutIsTheStreamAlone(t *testing.T) {
	bin := toolBinary(t)
	out, err := exec.Command(bin, "export", "--format", "chrome-json", "-o", "/dev/stdout", ref("mixed-small.ctrace")).Output()
	require.NoError(t, err)
	require.True(t, json.Valid(out), "not one JSON document; it ends with %q", out[max(0, len(out)-40):])
}
