//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
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
	// Issue 21 item 12: on tmpfs under /dev/shm too (it was taken for a
	// device by its path, written directly, and left 610-748 MB behind).
	outDirs := []string{dir}
	if shm := shmDir(t); shm != "" {
		outDirs = append(outDirs, shm)
	}
	for _, od := range outDirs {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			where := "tmpdir"
			if od != dir {
				where = "shm"
			}
			t.Run(fmt.Sprintf("%s/%v", where, sig), func(t *testing.T) {
				if sig == syscall.SIGINT && signal.Ignored(os.Interrupt) {
					// The tool inherits the ignored SIGINT (this test runs as
					// a background job of a non-interactive shell) and keeps
					// it ignored, as it should: SIGTERM's case checks the
					// cleanup.
					t.Skip("SKIPPED: SIGINT is ignored in this environment (a background job); the tool keeps it ignored")
				}
				cmd := exec.Command(bin, "export", in, "-o", filepath.Join(od, "out.pftrace"))
				require.NoError(t, cmd.Start())
				deadline := time.Now().Add(20 * time.Second)
				for !slices.ContainsFunc(names(t, od), func(n string) bool { return strings.HasPrefix(n, ".out.pftrace.tmp-") }) {
					require.True(t, time.Now().Before(deadline), "no temporary directory appeared in %s", od)
					time.Sleep(time.Millisecond)
				}
				require.NoError(t, cmd.Process.Signal(sig))
				err := cmd.Wait()
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, "the export must not have finished")
				ws := ee.Sys().(syscall.WaitStatus)
				require.True(t, ws.Signaled() && ws.Signal() == sig, "%v: %v", sig, ws)
				want := []string(nil)
				if od == dir {
					want = []string{"w1.ctrace"}
				}
				require.Equal(t, want, names(t, od), "%s, %v", od, sig)
			})
		}
	}
}

// shmDir is a fresh directory under /dev/shm, removed after the test, or
// "" (said loudly) where there is no /dev/shm.
func shmDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Log("SKIPPED the /dev/shm cases: no /dev/shm on this machine")
		return ""
	}
	d, err := os.MkdirTemp("/dev/shm", "trace_reader-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// Issue 21 item 12: an output is a regular file or not by what it is, not
// by its path: under /dev/shm (tmpfs) every command writes a temporary
// and renames it, merge is not refused, and an export is split by
// --max-file-size.
func TestOutputOnTmpfsIsRegular(t *testing.T) {
	dir := shmDir(t)
	if dir == "" {
		return
	}
	for _, w := range writers {
		out := filepath.Join(dir, "out")
		args := subst(w, ref("multiblock.ctrace"), out)
		if w[0] == "export" {
			// A few parts of the 2.8 MB Perfetto export (1000 bytes made
			// 4,228 parts and 10,487 in Chrome JSON: half a minute).
			args = append(args, "--max-file-size", "1000000")
		}
		code, stdout, errOut := runTool(args...)
		require.Equal(t, 0, code, "%q: %s", args, errOut)
		got := names(t, dir)
		require.Contains(t, got, "out", "%q", args)
		if w[0] == "export" {
			require.Contains(t, got, "out.part2", "%q: split", args)
			require.Contains(t, stdout, out+"\n", "the files written are listed")
		} else {
			require.Equal(t, []string{"out"}, got, "%q", args)
		}
		for _, n := range got {
			require.NoError(t, os.Remove(filepath.Join(dir, n)))
		}
	}
	out := filepath.Join(dir, "m.ctrace")
	code, _, errOut := runTool("merge", "-o", out, ref("multiblock.ctrace"), ref("raw.ctrace"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []string{"m.ctrace"}, names(t, dir))
	r, err := mmapio.Open(out)
	require.NoError(t, err)
	require.NoError(t, r.Close())
}

// /dev/stdout stands for the descriptor whatever it is: a regular file the
// shell opened is written through it (not replaced by a rename: the same
// inode holds the dump), and merge, which seeks, writes a valid trace
// through it.
func TestOutputDescriptorIsWrittenDirectly(t *testing.T) {
	bin := toolBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "log.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	before, err := f.Stat()
	require.NoError(t, err)
	cmd := exec.Command(bin, "dump", ref("raw.ctrace"), "-o", "/dev/stdout")
	cmd.Stdout = f
	var errOut strings.Builder
	cmd.Stderr = &errOut
	err = cmd.Run()
	f.Close()
	require.NoError(t, err, errOut.String())
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after), "written in place")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, refDump(t, "raw.dump.txt.gz") == string(got), "the dump, %d bytes", len(got))
	require.Equal(t, []string{"log.txt"}, names(t, dir))

	merged := filepath.Join(dir, "m.ctrace")
	f, err = os.Create(merged)
	require.NoError(t, err)
	cmd = exec.Command(bin, "merge", "-o", "/dev/stdout", ref("multiblock.ctrace"), ref("raw.ctrace"))
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	f.Close()
	require.NoError(t, err, stderr.String())
	r, err := mmapio.Open(merged)
	require.NoError(t, err)
	require.NoError(t, r.Close())

	// A pipe cannot take a merge: refused, status 2.
	cmd = exec.Command(bin, "merge", "-o", "/dev/stdout", ref("multiblock.ctrace"), ref("raw.ctrace"))
	cmd.Stdout = io.Discard // a pipe to the test
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 2, ee.ExitCode())
}

// An export to /dev/stdout is the export alone: the list of files written,
// printed after a regular export, must not trail the stream.
func TestExportToDevStdoutIsTheStreamAlone(t *testing.T) {
	bin := toolBinary(t)
	out, err := exec.Command(bin, "export", "--format", "chrome-json", "-o", "/dev/stdout", ref("mixed-small.ctrace")).Output()
	require.NoError(t, err)
	require.True(t, json.Valid(out), "not one JSON document; it ends with %q", out[max(0, len(out)-40):])
}
