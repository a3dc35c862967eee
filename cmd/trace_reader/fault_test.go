//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// A trace that shrinks while it is dumped used to kill the process with
// SIGBUS (exit status 2, which is for usage errors). The dump now ends with
// exit status 1 and one line naming the file.
func TestDumpOfAShrinkingFile(t *testing.T) {
	dir := t.TempDir()
	bin := toolBinary(t)
	path := filepath.Join(dir, "shrinking.ctrace")
	b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(300000, 8, 2), ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: true})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))

	// The first lines mean the file is mapped; the dump then waits for us
	// to read on, far before its end (it holds ~18 MB of text).
	msg := cutWhileReading(t, path, "", bin, "dump", path)
	require.True(t, strings.HasPrefix(msg, "trace_reader: "+path+": reading byte "), msg)
	require.Contains(t, msg, "the file shrank or its storage failed while it was read")
}

// export and stats read the arguments of uncompressed blocks straight from
// the mapping, outside mmapio's guards: a shrinking file must end them with
// exit status 1 and one line too. The export writes into a FIFO we read
// slowly, so the file is cut while it runs.
func TestExportOfAShrinkingRawFile(t *testing.T) {
	dir := t.TempDir()
	bin := toolBinary(t)
	path := filepath.Join(dir, "raw.ctrace")
	require.NoError(t, os.WriteFile(path, shrinkingRawTrace(t), 0o644))
	fifo := filepath.Join(dir, "out.json")
	msg := cutWhileReading(t, path, fifo, bin, "export", "--format", "chrome-json", "-o", fifo, path)
	require.Contains(t, msg, "the file shrank or its storage failed while it was read")
}

// recover copies blocks from the mapping into its output: a write(2) from
// pages the input lost fails with EFAULT, which was reported as an error
// writing the output ("bad address"). It names the input, the block and
// the byte now. The output is a FIFO we read slowly, so the input is cut
// while the blocks are copied.
func TestRecoverOfAShrinkingFile(t *testing.T) {
	dir := t.TempDir()
	bin := toolBinary(t)
	path := filepath.Join(dir, "in.ctrace")
	require.NoError(t, os.WriteFile(path, shrinkingRawTrace(t), 0o644))
	fifo := filepath.Join(dir, "out.ctrace")
	msg := cutWhileReading(t, path, fifo, bin, "recover", "-o", fifo, path)
	require.True(t, strings.HasPrefix(msg, "trace_reader: "+path+": block "), msg)
	require.Contains(t, msg, ": reading byte ")
	require.Contains(t, msg, "the file shrank or its storage failed while it was read")
	require.NotContains(t, msg, "bad address")
}

// shrinkingRawTrace is the raw trace the export and recover of a shrinking
// file read (each test cuts its own copy): 300,000 W1 events in raw blocks
// of 16 KiB, built once per test binary (2 s under the race detector).
func shrinkingRawTrace(t *testing.T) []byte {
	t.Helper()
	shrinkingRaw.Do(func() {
		shrinkingRaw.b, shrinkingRaw.err = ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(300000, 8, 2),
			ctracetest.Options{BlockSize: 16 << 10, PerUnit: true})
	})
	require.NoError(t, shrinkingRaw.err)
	return shrinkingRaw.b
}

var shrinkingRaw struct {
	sync.Once
	b   []byte
	err error
}

// cutWhileReading runs the command args and reads the first 4 KiB it
// writes (to stdout, or to the FIFO fifo when not ""), which means it has
// mapped path; then it cuts path to 0 bytes, drains the rest, and returns
// the command's stderr once it has ended with exit status 1 and one line.
func cutWhileReading(t *testing.T, path, fifo string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var out io.ReadCloser
	if fifo == "" {
		pipe, err := cmd.StdoutPipe()
		require.NoError(t, err)
		out = pipe
		require.NoError(t, cmd.Start())
	} else {
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		require.NoError(t, cmd.Start())
		f, err := os.Open(fifo)
		require.NoError(t, err)
		defer f.Close()
		out = f
	}
	_, err := io.ReadFull(out, make([]byte, 4096))
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, 0))
	n, _ := io.Copy(io.Discard, out)
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%s of %d more bytes succeeded", args[1], n)
	require.Equal(t, 1, exit.ExitCode(), "stderr: %s", stderr.String())
	msg := stderr.String()
	require.Equal(t, 1, strings.Count(msg, "\n"), msg)
	return msg
}
