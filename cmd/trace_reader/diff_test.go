package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// readEvents returns a file's events in its iteration order, with its schema.
func readEvents(t *testing.T, path string) (*schema.Schema, []ctracetest.Event) {
	t.Helper()
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	var evs []ctracetest.Event
	for ev := range r.Events(mmapio.Query{}) {
		evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: ev.Cycle, FormatID: ev.FormatID, Category: ev.Category,
			SourceID: ev.UnitID, ArgCount: ev.ArgCount}, Args: slices.Clone(ev.RawArgs())})
	}
	require.NoError(t, r.Err())
	s := *r.Schema()
	return &s, evs
}

// renumbered is s and evs with unit ids reversed (what a simulator that
// registers its units in another order writes) and format ids shifted.
func renumbered(s *schema.Schema, evs []ctracetest.Event) (*schema.Schema, []ctracetest.Event) {
	maxID := uint16(0)
	for _, u := range s.Units {
		maxID = max(maxID, u.ID)
	}
	uid := func(id uint16) uint16 {
		if id == 0 {
			return 0
		}
		return maxID + 1 - id
	}
	ns := *s
	ns.Units = nil
	for _, u := range slices.Backward(s.Units) {
		u.ID = uid(u.ID)
		ns.Units = append(ns.Units, u)
	}
	ns.Formats = nil
	known := map[uint32]bool{}
	for _, f := range s.Formats {
		known[f.ID] = true
		f.ID += 100
		ns.Formats = append(ns.Formats, f)
	}
	out := make([]ctracetest.Event, len(evs))
	for i, e := range evs {
		e.SourceID = uid(e.SourceID)
		if known[e.FormatID] {
			e.FormatID += 100
		}
		out[i] = e
	}
	return &ns, out
}

func diffTool(t *testing.T, a, b string, opts ...string) (int, string, string) {
	t.Helper()
	return runTool(append(append([]string{"diff"}, opts...), a, b)...)
}

// The same events written in other layouts (block sizes, levels, one
// stream without unit sets as the original writer, other unit and format
// ids) are equal: exit 0, nothing printed.
func TestDiffEqualAcrossLayouts(t *testing.T) {
	dir := t.TempDir()
	w1s, w1 := ctracetest.W1Schema(16), ctracetest.W1Events(40000, 16, 5)
	rs, rev := renumbered(w1s, w1)
	mixedPaths, _ := timelineInputs(t)
	ms, mixed := readEvents(t, mixedPaths[2])
	cs, cEvents := readEvents(t, ref("multiblock.ctrace")) // written by the original C++ writer
	// The W1 events in our layout: A of the first case and of "other ids".
	w1Ours := writeTrace(t, dir, "w1a.ctrace", w1s, w1, ourLayout)
	for _, c := range []struct {
		name string
		a, b string
	}{
		{"w1 ours vs original layout", w1Ours, writeTrace(t, dir, "w1b.ctrace", w1s, w1, cLayout)},
		{"w1 raw 1 MiB blocks vs level best", writeTrace(t, dir, "w1c.ctrace", w1s, w1, ctracetest.Options{BlockSize: 1 << 20, PerUnit: true}),
			writeTrace(t, dir, "w1d.ctrace", w1s, w1, ctracetest.Options{BlockSize: 16 << 10, PerUnit: true, Compress: true, Level: zstd.SpeedBestCompression})},
		{"w1 other ids", w1Ours, writeTrace(t, dir, "w1f.ctrace", rs, rev, cLayout)},
		{"mixed by the runtime vs rewritten", mixedPaths[2], writeTrace(t, dir, "mixed2.ctrace", ms, mixed, cLayout)},
		{"original writer vs our layout", ref("multiblock.ctrace"), writeTrace(t, dir, "c2.ctrace", cs, cEvents, ourLayout)},
	} {
		code, out, errOut := diffTool(t, c.a, c.b)
		require.Equal(t, 0, code, "%s: %s%s", c.name, out, errOut)
		require.Empty(t, out, c.name)
		code, _, _ = diffTool(t, c.b, c.a)
		require.Equal(t, 0, code, c.name)
	}
}

// unitIndex returns the index of event i among the events of its unit.
func unitIndex(evs []ctracetest.Event, i int) int {
	n := 0
	for _, e := range evs[:i] {
		if e.SourceID == evs[i].SourceID {
			n++
		}
	}
	return n
}

// One changed argument, one extra event, one missing unit: each reported
// at the right event, and only there.
func TestDiffFindsTheDifference(t *testing.T) {
	dir := t.TempDir()
	// A, in our layout, is the same file for both layouts of B: written once.
	s, evs := ctracetest.W1Schema(16), ctracetest.W1Events(30000, 16, 3)
	a := writeTrace(t, dir, "a.ctrace", s, evs, ourLayout)
	for _, layout := range []struct {
		name string
		opts ctracetest.Options
	}{{"ours", ourLayout}, {"original", cLayout}} {

		// A changed argument in event 12345 (a fetch: pc). The report
		// counts a unit's events from 1: its k-th from 0 is event k+1.
		changed := slices.Clone(evs)
		const at = 12344
		require.Equal(t, ctracetest.W1Fetch, int(changed[at].FormatID))
		changed[at].Args = slices.Clone(changed[at].Args)
		changed[at].Args[0] ^= 0x10
		b := writeTrace(t, dir, layout.name+"-changed.ctrace", s, changed, layout.opts)
		code, out, errOut := diffTool(t, a, b)
		require.Equal(t, 1, code, errOut)
		unit := ctracetest.W1UnitName(int(evs[at].SourceID))
		k := unitIndex(evs, at)
		require.Contains(t, out, fmt.Sprintf("unit %s: first difference at event %d, cycle %d in %s, cycle %d in %s\n", unit, k+1, evs[at].Cycle, a, evs[at].Cycle, b))
		require.Contains(t, out, "1 of 16 units differ; 0 only in")
		// The differing lines are marked, with context around them.
		r, err := mmapio.Open(a)
		require.NoError(t, err)
		var wantA string
		i := 0
		for ev := range r.Events(mmapio.Query{}.WithUnits(evs[at].SourceID)) {
			if i == k {
				wantA = string(tracetext.AppendLine(nil, r, &ev))
			}
			i++
		}
		r.Close()
		require.Contains(t, out, " > "+wantA)
		require.Equal(t, 2, strings.Count(out, " > "))
		require.Equal(t, 1+2*(1+2*3+1)+1+1+1, strings.Count(out, "\n"), out) // head, 2x(label + 7 lines), counts head, 1 format, summary

		// One extra event after event 20000, in its unit.
		const after = 20000
		extra := slices.Insert(slices.Clone(evs), after+1, evs[after])
		b = writeTrace(t, dir, layout.name+"-extra.ctrace", s, extra, layout.opts)
		code, out, errOut = diffTool(t, a, b)
		require.Equal(t, 1, code, errOut)
		unit = ctracetest.W1UnitName(int(evs[after].SourceID))
		k = unitIndex(evs, after) + 1
		want := fmt.Sprintf("unit %s: first difference at event %d, cycle %d in %s, cycle %d in %s\n", unit, k+1, evs[after+16].Cycle, a, evs[after].Cycle, b)
		require.Contains(t, out, want)
		require.Regexp(t, regexp.MustCompile(`\n +(\d+) +(\d+)  fetch pc=0x\{:x\} taken=\{\}  \*\n`), out)
		m := regexp.MustCompile(`\n +(\d+) +(\d+)  fetch pc=0x\{:x\} taken=\{\}  \*\n`).FindStringSubmatch(out)
		require.NotEqual(t, m[1], m[2])

		// The extra event at the very end of a unit: B has an event A lacks.
		last := len(evs) - 1
		tail := append(slices.Clone(evs), evs[last])
		b = writeTrace(t, dir, layout.name+"-tail.ctrace", s, tail, layout.opts)
		code, out, _ = diffTool(t, a, b)
		require.Equal(t, 1, code)
		k = unitIndex(evs, last) + 1
		require.Contains(t, out, fmt.Sprintf("unit %s: first difference at event %d, none in %s (it has %d events), cycle %d in %s\n",
			ctracetest.W1UnitName(int(evs[last].SourceID)), k+1, a, k, evs[last].Cycle, b))
		require.Contains(t, out, fmt.Sprintf("   > (no event %d)\n", k+1))

		// A missing unit (unit 5: core0.lsu): only in A.
		ms := *s
		ms.Units = slices.DeleteFunc(slices.Clone(s.Units), func(u schema.Unit) bool { return u.ID == 5 })
		missing := slices.DeleteFunc(slices.Clone(evs), func(e ctracetest.Event) bool { return e.SourceID == 5 })
		b = writeTrace(t, dir, layout.name+"-missing.ctrace", &ms, missing, layout.opts)
		code, out, _ = diffTool(t, a, b)
		require.Equal(t, 1, code)
		require.Equal(t, fmt.Sprintf("only in %s: core0.lsu (%d events)\n0 of 15 units differ; 1 only in %s, 0 only in %s\n", a, len(evs)/16, a, b), out)
		code, out, _ = diffTool(t, b, a)
		require.Equal(t, 1, code)
		require.Contains(t, out, fmt.Sprintf("only in %s: core0.lsu (%d events)\n", a, len(evs)/16))
	}
}

// --unit and --cycles narrow the comparison; errors exit 2.
func TestDiffFiltersAndErrors(t *testing.T) {
	dir := t.TempDir()
	s, evs := ctracetest.W1Schema(16), ctracetest.W1Events(30000, 16, 3)
	a := writeTrace(t, dir, "a.ctrace", s, evs, ourLayout)
	changed := slices.Clone(evs)
	changed[100].Args = slices.Clone(changed[100].Args)
	changed[100].Args[0] ^= 1
	b := writeTrace(t, dir, "b.ctrace", s, changed, cLayout)
	code, _, _ := diffTool(t, a, b)
	require.Equal(t, 1, code)
	other := ctracetest.W1UnitName(int(evs[101].SourceID))
	code, out, _ := diffTool(t, a, b, "--unit", other)
	require.Equal(t, 0, code, out)
	code, _, _ = diffTool(t, a, b, "--unit", ctracetest.W1UnitName(int(evs[100].SourceID)))
	require.Equal(t, 1, code)
	code, out, _ = diffTool(t, a, b, "--cycles", fmt.Sprint(evs[100].Cycle+1))
	require.Equal(t, 0, code, out)
	code, _, _ = diffTool(t, a, b, "--cycles", fmt.Sprintf("%d-%d", evs[100].Cycle, evs[100].Cycle))
	require.Equal(t, 1, code)

	code, _, errOut := diffTool(t, a, filepath.Join(dir, "missing.ctrace"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "missing.ctrace")
	code, _, errOut = diffTool(t, a, b, "--unit", "nosuch")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `no unit name in any of the 2 files contains "nosuch"; the units are core0.fetch,`)
	code, _, _ = runTool("diff", a)
	require.Equal(t, 2, code)
}

// Runs of other seeds and unit counts: every common unit differs at its
// first event, the others are in one run only.
func TestDiffOtherSeedsAndUnits(t *testing.T) {
	dir := t.TempDir()
	a := writeTrace(t, dir, "a.ctrace", ctracetest.W1Schema(16), ctracetest.W1Events(20000, 16, 1), ourLayout)
	b := writeTrace(t, dir, "b.ctrace", ctracetest.W1Schema(5), ctracetest.W1Events(20000, 5, 2), cLayout)
	code, out, errOut := diffTool(t, a, b)
	require.Equal(t, 1, code, errOut)
	require.Equal(t, 5, strings.Count(out, ": first difference at event 1, "), out)
	require.Equal(t, 11, strings.Count(out, "only in "+a+": "))
	require.True(t, strings.HasSuffix(out, fmt.Sprintf("5 of 5 units differ; 11 only in %s, 0 only in %s\n", a, b)), out)
}

// A block that does not decode: exit 2, naming the file and the block.
func TestDiffBadBlock(t *testing.T) {
	dir := t.TempDir()
	s, evs := ctracetest.W1Schema(4), ctracetest.W1Events(20000, 4, 1)
	a := writeTrace(t, dir, "a.ctrace", s, evs, ourLayout)
	b, layout, err := ctracetest.BuildLayout(s, evs, ourLayout)
	require.NoError(t, err)
	blk := layout.Blocks[len(layout.Blocks)/2]
	b[blk.DataOffset+schema.BlockHeaderSize+20] ^= 0xff // inside the zstd frame
	bad := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, b, 0o644))
	code, out, errOut := diffTool(t, a, bad)
	require.Equal(t, 2, code, out)
	require.Contains(t, errOut, bad)
	require.Contains(t, errOut, "block")
}
