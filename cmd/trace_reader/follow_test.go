package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// syncBuf is a bytes.Buffer two goroutines may use.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var (
	followFmt  = chronon.MustFormat2[uint64, string]("follow pc=0x{:x} s={}")
	followLate *chronon.Format1[uint32]
)

// byUnit groups dump lines by unit, each unit's lines in printed order.
func byUnit(dump string) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.SplitAfter(dump, "\n") {
		if line == "" {
			continue
		}
		_, rest, _ := strings.Cut(line, "] ")
		unit, _, _ := strings.Cut(rest, ": ")
		m[unit] = append(m[unit], line)
	}
	return m
}

// TestFollowWhileWriting: one goroutine writes a trace (flushing as it
// goes, adding units and a format mid-run so that the schema outgrows its
// slots into a schema frame), another follows it. The follower prints the
// first phase before the writer goes on (it is live), ends by itself when
// the writer closes the file, and prints every event exactly once, each
// unit's in cycle order, as dump prints the finished file.
func TestFollowWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096),
		chronon.WithSchemaReserve(4096), chronon.WithFlushInterval(0))
	require.NoError(t, err)

	out := &syncBuf{}
	c := &config{command: "follow", file: path}
	followed := make(chan error, 1)
	go func() { followed <- followTrace(context.Background(), c, out, 2*time.Millisecond) }()

	var units []*chronon.Unit
	for i := range 4 {
		u, err := tr.NewUnit(fmt.Sprintf("core%d.fetch", i))
		require.NoError(t, err)
		units = append(units, u)
	}
	cycle := uint64(0)
	emit := func(n int) {
		for range n {
			for i, u := range units {
				followFmt.Emit(u, cycle, cycle*4+uint64(i), strings.Repeat("x", i+int(cycle%5)))
				if followLate != nil && i%2 == 0 {
					followLate.Emit(u, cycle, uint32(i))
				}
			}
			cycle++
			if cycle%97 == 0 {
				require.NoError(t, tr.Flush())
			}
		}
	}
	emit(500)
	require.NoError(t, tr.Flush())
	last := fmt.Sprintf("[%10d] core3.fetch: follow", cycle-1)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), last) }, 20*time.Second, time.Millisecond,
		"the follower did not print the first phase while the file was open")

	// Phase 2: a new format and many units with long names, registered
	// after the first blocks: the schema grows past its 4 KiB slots.
	followLate = chronon.MustFormat1[uint32]("late n={}")
	for i := range 120 {
		u, err := tr.NewUnit(fmt.Sprintf("system.cluster%03d.a_rather_long_unit_name_to_grow_the_schema", i))
		require.NoError(t, err)
		units = append(units, u)
	}
	emit(300)
	require.NoError(t, tr.Close())

	select {
	case err := <-followed:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("follow did not end after the writer closed the file")
	}
	code, dump, stderr := runTool("dump", path)
	require.Equal(t, 0, code, stderr)
	got, want := byUnit(out.String()), byUnit(dump)
	require.Len(t, got, len(units))
	require.Equal(t, want, got)
	require.Equal(t, strings.Count(dump, "\n"), strings.Count(out.String(), "\n"))
	// Each unit's lines are in cycle order (dump's, which sorts by cycle).
	for u, lines := range got {
		require.True(t, sort.SliceIsSorted(lines, func(i, j int) bool { return lines[i][:12] < lines[j][:12] }), u)
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	h, _ := schema.DecodeHeader(raw)
	require.Greater(t, h.SchemaOffset, h.FirstBlockOffset, "the schema did not move into a schema frame: the test misses its case")
	code, info, _ := runTool("info", "-v", path)
	require.Equal(t, 0, code)
	require.Contains(t, info, "system.cluster119")
}

// TestFollowCompleteFile: a finished file is printed once, filtered like
// filter, and follow returns.
func TestFollowCompleteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096))
	require.NoError(t, err)
	a, _ := tr.NewUnit("a.x")
	b, _ := tr.NewUnit("b.y")
	for cy := uint64(0); cy < 3000; cy++ {
		followFmt.Emit(a, cy, cy, "a")
		followFmt.Emit(b, cy, cy, "b")
	}
	require.NoError(t, tr.Close())
	var out bytes.Buffer
	c := &config{command: "follow", file: path, units: []string{"b."}, hasUnit: true, hasCycles: true, start: 100, end: 2100}
	require.NoError(t, followTrace(context.Background(), c, &out, time.Millisecond))
	code, want, _ := runTool("filter", path, "--unit", "b.", "--cycles", "100-2100")
	require.Equal(t, 0, code)
	require.Equal(t, want, out.String())
	require.Equal(t, 2001, strings.Count(out.String(), "\n"))
}

// TestFollowNotATrace: a file that is not a trace is an error naming it.
func TestFollowNotATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.ctrace")
	require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte("junk"), 100), 0o644))
	code, _, stderr := runTool("follow", path)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, path)
	require.Contains(t, stderr, "magic")
}

// TestFollowReferenceFiles: follow prints the original writer's files as
// dump does: closed ones (it then returns), one written without a footer
// and one its writer was killed in (header offsets all zero: recovery finds
// the schema and the first block), which it follows until cancelled.
func TestFollowReferenceFiles(t *testing.T) {
	for _, name := range []string{"raw.ctrace", "multiblock.ctrace", "noschema.ctrace", "mixed-small.ctrace",
		"noindex.ctrace", "crash.ctrace.crash"} {
		path := ref(name)
		code, want, _ := runTool("dump", path)
		require.Equal(t, 0, code, name)
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuf{}
		done := make(chan error, 1)
		go func() { done <- followTrace(ctx, &config{command: "follow", file: path}, out, time.Millisecond) }()
		open := name == "noindex.ctrace" || name == "crash.ctrace.crash" // no footer: never "closed"
		if open {
			require.Eventually(t, func() bool { return len(out.String()) >= len(want) }, 20*time.Second, time.Millisecond, name)
			time.Sleep(20 * time.Millisecond) // a second look prints nothing more
			cancel()
		}
		select {
		case err := <-done:
			require.NoError(t, err, name)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: follow did not return", name)
		}
		cancel()
		require.Equal(t, want, out.String(), name)
	}
}
