//go:build unix

package chronon_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// writeSmallTrace writes 1000 events to path and returns them as emitted.
func writeSmallTrace(t *testing.T, path string) []rbEvent {
	t.Helper()
	f := formats(t)
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	var want []rbEvent
	for i := range 1000 {
		c := uint64(i)
		f.u64b.Emit(u, c, c*4, i%3 == 0)
		want = append(want, ev(c, f.u64b.ID(), 2, u, 2, cat(u64(c*4), boolb(i%3 == 0))))
	}
	require.NoError(t, tr.Close())
	return want
}

func bigFile(t *testing.T, path string) []byte {
	t.Helper()
	old := bytes.Repeat([]byte("old trace "), 300_000) // 3 MB: above the replace threshold
	require.NoError(t, os.WriteFile(path, old, 0o644))
	return old
}

// A large existing trace is replaced by a new file (its name unlinked, its
// blocks freed off the simulation's path); a reader that still has the old
// file open keeps seeing the old bytes, which proves it was not truncated in
// place, and the new file holds exactly the new trace.
func TestOutputReplacesLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ctrace")
	old := bigFile(t, path)
	r, err := os.Open(path)
	require.NoError(t, err)
	defer r.Close()
	var before syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &before))

	want := writeSmallTrace(t, path)

	got := readBack(t, path)
	requireSameEvents(t, want, got.events)
	var after syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &after))
	require.NotEqual(t, before.Ino, after.Ino, "a large file is replaced, not truncated")
	buf := make([]byte, len(old))
	n, err := r.ReadAt(buf, 0)
	require.NoError(t, err)
	require.Equal(t, old, buf[:n])
}

// A hard-linked file keeps O_TRUNC semantics: both names see the new trace.
func TestOutputTruncatesHardLinkedFile(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, "t.ctrace"), filepath.Join(dir, "link.ctrace")
	bigFile(t, path)
	require.NoError(t, os.Link(path, other))

	want := writeSmallTrace(t, path)

	requireSameEvents(t, want, readBack(t, path).events)
	requireSameEvents(t, want, readBack(t, other).events)
}

// A symlink is written through, not replaced: the link stays a link and its
// target holds the new trace.
func TestOutputWritesThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.ctrace"), filepath.Join(dir, "link.ctrace")
	bigFile(t, target)
	require.NoError(t, os.Symlink(target, link))

	want := writeSmallTrace(t, link)

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink)
	requireSameEvents(t, want, readBack(t, target).events)
}

// A small existing file is truncated in place as before.
func TestOutputTruncatesSmallFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ctrace")
	require.NoError(t, os.WriteFile(path, []byte("short"), 0o644))
	want := writeSmallTrace(t, path)
	requireSameEvents(t, want, readBack(t, path).events)
}

// Two tracers on one path: the second Create fails with an error naming the
// path, and the first writes a complete file; once it is closed the path
// can be written again.
func TestCreateLocksOutput(t *testing.T) {
	for _, big := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "t.ctrace")
		if big {
			bigFile(t, path) // the replace-by-rename path
		}
		a, err := chronon.Create(path, chronon.WithAutoMetadata(false))
		require.NoError(t, err)
		b, err := chronon.Create(path, chronon.WithAutoMetadata(false))
		require.Error(t, err, "a second tracer on %s", path)
		require.Nil(t, b)
		require.ErrorIs(t, err, chronon.ErrOutputLocked)
		require.ErrorContains(t, err, path)
		u, err := a.NewUnit("u")
		require.NoError(t, err)
		formats(t).none.Emit(u, 7)
		require.NoError(t, a.Close())
		require.Len(t, readBack(t, path).events, 1)
		oracleCheck(t, path)

		want := writeSmallTrace(t, path) // the lock went with Close
		requireSameEvents(t, want, readBack(t, path).events)
	}
}

// Tracers racing to Create one path (an existing large trace, replaced, or
// a fresh name): exactly one wins, every time.
func TestCreateRaceHasOneWinner(t *testing.T) {
	const racers = 6
	for round := range 30 {
		path := filepath.Join(t.TempDir(), "t.ctrace")
		if round%2 == 0 {
			bigFile(t, path)
		}
		var wg sync.WaitGroup
		trs := make([]*chronon.Tracer, racers)
		errs := make([]error, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				trs[i], errs[i] = chronon.Create(path, chronon.WithAutoMetadata(false))
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range racers {
			if errs[i] == nil {
				won++
				require.NoError(t, trs[i].Close())
			} else {
				require.ErrorIs(t, errs[i], chronon.ErrOutputLocked, "round %d", round)
			}
		}
		require.Equal(t, 1, won, "round %d: tracers that created %s", round, path)
		require.Empty(t, leftovers(t, filepath.Dir(path)), "no temporary file is left behind")
	}
}

// leftovers lists the directory's entries other than t.ctrace.
func leftovers(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if e.Name() != "t.ctrace" {
			out = append(out, e.Name())
		}
	}
	return out
}

// Replacing a large trace keeps the old file's mode (and owner, which only
// root could change here): a 0600 trace stays 0600.
func TestOutputReplaceKeepsMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o640, 0o604} {
		path := filepath.Join(t.TempDir(), "t.ctrace")
		bigFile(t, path)
		require.NoError(t, os.Chmod(path, mode)) // not subject to the umask
		var before syscall.Stat_t
		require.NoError(t, syscall.Stat(path, &before))

		writeSmallTrace(t, path)

		var after syscall.Stat_t
		require.NoError(t, syscall.Stat(path, &after))
		require.NotEqual(t, before.Ino, after.Ino, "the large file was replaced")
		require.Equal(t, uint32(mode), after.Mode&0o7777, "mode %o", mode)
		require.Equal(t, before.Uid, after.Uid)
		require.Equal(t, before.Gid, after.Gid)
	}
}
