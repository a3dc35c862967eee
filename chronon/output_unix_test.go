//go:build unix

package chronon_test

import (
	"bytes"
	"os"
	"path/filepath"
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
