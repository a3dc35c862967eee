package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// liveFollowed starts a writer of path without closing it (no footer),
// flushes 2,000 cycles of one unit and starts a follow of it; it returns
// the follow's output, its end, and the writer (closed by the test's
// cleanup, its error ignored: the tests take its file away).
func liveFollowed(t *testing.T, path string) (*syncBuf, chan error) {
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096), chronon.WithFlushInterval(0))
	require.NoError(t, err)
	t.Cleanup(func() { _ = tr.Close() })
	u, err := tr.NewUnit("core0")
	require.NoError(t, err)
	for cy := uint64(0); cy < 2000; cy++ {
		followFmt.Emit(u, cy, cy, "x")
	}
	require.NoError(t, tr.Flush())
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() {
		done <- followTrace(context.Background(), &config{command: "follow", file: path}, out, 2*time.Millisecond)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "[      1999] core0:") }, 20*time.Second, time.Millisecond)
	return out, done
}

// ended waits for the follow to end and returns its error.
func ended(t *testing.T, done chan error) error {
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the follow did not end")
		return nil
	}
}

// Issue 21 item 14: a footer-less file truncated while followed ends the
// follow with an error naming the file (it went unnoticed).
func TestFollowTruncatedFileEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.ctrace")
	_, done := liveFollowed(t, path)
	require.NoError(t, os.Truncate(path, 4096))
	err := ended(t, done)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "shrank")
}

// Issue 21 item 14: a file that a new run replaces at the same path ends
// the follow with an error naming it (it waited on the old, unlinked file
// forever).
func TestFollowReplacedFileEnds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.ctrace")
	_, done := liveFollowed(t, path)
	other := filepath.Join(dir, "new.ctrace")
	tr, err := chronon.Create(other, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	require.NoError(t, tr.Close())
	require.NoError(t, os.Rename(other, path))
	err = ended(t, done)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "replaced by another file")
}

// Hostile review: a new run that opens the followed path with O_TRUNC and
// writes more than the old size before the next poll went unnoticed (the
// file neither shrank nor was replaced): the follow printed nothing more
// until Ctrl-C. It ends with an error naming the file; a file the same
// writer goes on appending to is followed to its end, as before.
func TestFollowFileRewrittenInPlaceEnds(t *testing.T) {
	s := ctracetest.W1Schema(4)
	opts := ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true}
	old, err := ctracetest.Build(s, ctracetest.W1Events(2000, 4, 1), opts)
	require.NoError(t, err)
	again, err := ctracetest.Build(s, ctracetest.W1Events(4000, 4, 2), opts)
	require.NoError(t, err)
	require.Greater(t, len(again), len(old))
	path := filepath.Join(t.TempDir(), "run.ctrace")
	require.NoError(t, os.WriteFile(path, old[:len(old)/2], 0o644))
	fl, err := openFollower(path)
	require.NoError(t, err)
	defer fl.Close()
	read := func() (blocks int, err error) {
		for {
			r, err := fl.step()
			if r == nil || err != nil {
				return blocks, err
			}
			blocks += r.Status().Blocks
			r.Close()
		}
	}
	n, err := read()
	require.NoError(t, err)
	require.Positive(t, n)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(old[len(old)/2:]) // the same run goes on
	require.NoError(t, err)
	require.NoError(t, f.Close())
	n, err = read()
	require.NoError(t, err)
	require.Positive(t, n)

	require.NoError(t, os.WriteFile(path, again, 0o644)) // O_TRUNC, then more than the old size
	_, err = read()
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "rewritten while followed")
	fresh, err := openFollower(path) // a new follow reads the new run
	require.NoError(t, err)
	defer fresh.Close()
	fl = fresh
	n, err = read()
	require.NoError(t, err)
	require.Positive(t, n)
}
