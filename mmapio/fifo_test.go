//go:build unix

package mmapio

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openWithin runs Open(path) and fails the test if it does not return
// within a few seconds (a blocking open of a FIFO waits for a writer
// forever). The stuck open, if any, is released by opening the FIFO for
// writing.
func openWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		r, err := Open(path)
		if r != nil {
			r.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		if w, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("Open(%s) still blocked after 5 s", path)
		return nil
	}
}

// A FIFO, a directory or a device is refused at once with an error naming
// the file and what it is, instead of hanging in open.
func TestOpenRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.ctrace")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	err := openWithin(t, fifo)
	require.EqualError(t, err, fifo+": not a regular file (a FIFO): a trace is read through a mapping")

	_, err = Probe(fifo)
	require.ErrorContains(t, err, "a FIFO")

	err = openWithin(t, dir)
	require.ErrorContains(t, err, dir+": not a regular file (a directory)")

	if _, serr := os.Stat("/dev/null"); serr == nil {
		err = openWithin(t, "/dev/null")
		require.ErrorContains(t, err, "/dev/null: not a regular file (a character device)")
	}
}
