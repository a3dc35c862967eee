package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// TestStatsFollow: stats --follow prints a table per period while the file
// is written and a final one, with every unit's exact event count and last
// cycle, when the writer closes it.
func TestStatsFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096), chronon.WithFlushInterval(0))
	require.NoError(t, err)
	out := &syncBuf{}
	done := make(chan error, 1)
	c := &config{command: "stats", file: path, follow: true}
	go func() { done <- followStats(context.Background(), c, out, 20*time.Millisecond) }()

	a, _ := tr.NewUnit("core0.fetch")
	b, _ := tr.NewUnit("core1.fetch")
	for cy := uint64(0); cy < 1000; cy++ {
		followFmt.Emit(a, cy, cy, "a")
		if cy%2 == 0 {
			followFmt.Emit(b, cy, cy, "b")
		}
	}
	require.NoError(t, tr.Flush())
	require.Eventually(t, func() bool {
		return strings.Contains(out.String(), "writing") && strings.Contains(out.String(), " 1000 ")
	},
		20*time.Second, time.Millisecond, "no table while the file was written:\n%s", out.String())
	for cy := uint64(1000); cy < 3000; cy++ {
		followFmt.Emit(a, cy, cy, "a")
	}
	require.NoError(t, tr.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("stats --follow did not end after the writer closed the file")
	}
	s := out.String()
	final := s[strings.LastIndex(s, "closed"):]
	require.Regexp(t, regexp.MustCompile(`(?m)^closed .* 3500 events`), final)
	require.Regexp(t, regexp.MustCompile(`(?m)^core0\.fetch +3000 +\d+ +2999 `), final)
	require.Regexp(t, regexp.MustCompile(`(?m)^core1\.fetch +500 +\d+ +998 `), final)
	// The final rates are the whole run's (events since follow started /
	// wall time), not the last period's, in which core1 wrote nothing.
	r0 := regexp.MustCompile(`(?m)^core0\.fetch +3000 +(\d+) `).FindStringSubmatch(final)
	r1 := regexp.MustCompile(`(?m)^core1\.fetch +500 +(\d+) `).FindStringSubmatch(final)
	e0, _ := strconv.ParseFloat(r0[1], 64)
	e1, _ := strconv.ParseFloat(r1[1], 64)
	require.Positive(t, e1, final)
	require.InDelta(t, 6, e0/e1, 0.1, final)
}

// TestStatsFollowClosedFile: a file complete before stats --follow starts
// has no rates to show: counts, and '-' for the rates.
func TestStatsFollowClosedFile(t *testing.T) {
	code, out, stderr := runTool("stats", "--follow", ref("multiblock.ctrace"))
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, regexp.MustCompile(`(?m)^closed .* events +- events/s\n`), out)
	require.Regexp(t, regexp.MustCompile(`(?m)^core0\.fetch +\d+ +- +\d+ +-\n`), out)
	require.NotContains(t, out, "writing")
}

// TestStatsFollowUsage: --follow prints tables to stdout only.
func TestStatsFollowUsage(t *testing.T) {
	code, _, stderr := runTool("stats", "--follow", "--json", "x.ctrace")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--follow")
}
