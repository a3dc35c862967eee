package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// TestFollowOneFile: follow and stats --follow read one growing file;
// several are a usage error (status 2, one line, then the hint), not the
// first followed silently.
func TestFollowOneFile(t *testing.T) {
	for _, c := range []struct {
		args []string
		cmd  string
	}{
		{[]string{"follow", ref("raw.ctrace"), ref("multiblock.ctrace")}, "follow"},
		{[]string{"stats", "--follow", ref("raw.ctrace"), ref("multiblock.ctrace")}, "stats"},
		{[]string{"stats", ref("raw.ctrace"), ref("multiblock.ctrace"), "--follow"}, "stats"},
	} {
		code, out, stderr := runTool(c.args...)
		require.Equal(t, 2, code, "%q", c.args)
		require.Empty(t, out)
		first, rest, _ := strings.Cut(stderr, "\n")
		require.Contains(t, first, "one file", "%q", c.args)
		require.Equal(t, "Run 'trace_reader help "+c.cmd+"' for usage.\n", rest)
	}
	code, out, _ := runTool("help", "follow")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Usage: trace_reader follow [options] <file.ctrace>\n")
}

// TestFollowNoUnitOfAClosedFile: follow --unit NAME of a complete file
// that has no such unit fails as dump does (status 1, the same message);
// on a live file (no footer) it keeps waiting, for the unit may come.
func TestFollowNoUnitOfAClosedFile(t *testing.T) {
	code, _, want := runTool("dump", ref("multiblock.ctrace"), "--unit", "nosuch")
	require.Equal(t, 1, code)
	code, out, stderr := runTool("follow", ref("multiblock.ctrace"), "--unit", "nosuch")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, want, stderr)
	code, _, stderr = runTool("stats", "--follow", ref("multiblock.ctrace"), "--unit", "nosuch")
	require.Equal(t, 1, code)
	require.Equal(t, want, stderr)
	// A unit that exists: no error, even when --cycles selects none of its events.
	code, out, stderr = runTool("follow", ref("multiblock.ctrace"), "--unit", "core0", "--cycles", "999999999")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, out)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- followTrace(ctx, &config{command: "follow", file: ref("noindex.ctrace"), units: []string{"nosuch"}, hasUnit: true}, io.Discard, time.Millisecond)
	}()
	select {
	case err := <-done:
		t.Fatalf("follow of a live file returned: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	require.NoError(t, <-done)
}

// TestFollowWaitsForTheFile: follow started before the simulator waits
// for the file to appear (saying so once on stderr), then follows it; a
// directory that does not exist is an error at once.
func TestFollowWaitsForTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later.ctrace")
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := runTool("follow", path)
		done <- result{code, out, stderr}
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case r := <-done:
		t.Fatalf("follow of a file not yet created returned: %+v", r)
	default:
	}
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, _ := tr.NewUnit("a.x")
	for cy := uint64(0); cy < 10; cy++ {
		followFmt.Emit(u, cy, cy, "a")
	}
	require.NoError(t, tr.Close())
	select {
	case r := <-done:
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, "trace_reader: waiting for "+path+" to be created\n", r.stderr)
		require.Equal(t, 10, strings.Count(r.out, "\n"))
	case <-time.After(20 * time.Second):
		t.Fatal("follow did not end after the file was written")
	}
	for _, args := range [][]string{{"follow", filepath.Join(dir, "nodir", "x.ctrace")}, {"stats", "--follow", filepath.Join(dir, "nodir", "x.ctrace")}} {
		code, _, stderr := runTool(args...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "nodir")
	}
}
