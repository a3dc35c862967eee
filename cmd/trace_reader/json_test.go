package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// jsonOf runs a command line that prints JSON and decodes it strictly into
// v (an unknown field is an error: the output has only documented fields).
func jsonOf(t *testing.T, want int, v any, args ...string) {
	t.Helper()
	code, out, stderr := runTool(args...)
	require.Equal(t, want, code, "%q: %s", args, stderr)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "%q:\n%s", args, out)
	require.False(t, dec.More(), "one JSON value")
}

// info --json holds what the file holds, checked against the reader.
func TestInfoJSON(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{Compress: true, BlockSize: 8192, PerUnit: true, UnitStats: true,
		Dropped: map[uint16]uint64{3: 5}, Created: time.Unix(1700000000, 0)})
	var rep infoReport
	jsonOf(t, 0, &rep, "info", "--json", path)
	require.Len(t, rep.Files, 1)
	f := rep.Files[0]
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, path, f.File)
	require.Empty(t, f.Label)
	require.Equal(t, "1.1", f.Version)
	require.Equal(t, r.Footer().TotalEvents, f.Events)
	require.Equal(t, uint64(20000), f.Events)
	require.Equal(t, r.Footer().MinCycle, f.FirstCycle)
	require.Equal(t, r.Footer().MaxCycle, f.LastCycle)
	require.Equal(t, "complete", f.Status)
	require.False(t, f.Recovered)
	require.Equal(t, r.Size(), f.Size)
	require.Equal(t, "2023-11-14T22:13:20Z", f.Created)
	require.True(t, f.Compressed)
	require.Equal(t, len(r.Blocks()), f.Blocks.Count)
	require.Equal(t, f.Blocks.Count, f.Blocks.Zstd+f.Blocks.Raw)
	require.Equal(t, "one_unit_per_block", f.Blocks.UnitSets)
	require.Len(t, f.Units, 16)
	require.Len(t, f.Formats, len(r.Schema().Formats))
	var written uint64
	for _, u := range f.Units {
		require.NotNil(t, u.Events, u.Name)
		require.Equal(t, r.UnitName(u.ID), u.Name)
		written += *u.Events
	}
	require.Equal(t, f.Events, written)
	require.NotNil(t, f.Dropped)
	require.Equal(t, uint64(5), *f.Dropped)
	require.Equal(t, []infoMeta{{Key: "host", Value: "node7"}, {Key: "command", Value: "sim --config w1.yaml"}}, f.Metadata)

	// The text says the same.
	_, text, _ := runTool("info", path)
	for _, want := range []string{
		fmt.Sprintf("Total events: %d\n", f.Events),
		fmt.Sprintf("Cycle range: %d - %d\n", f.FirstCycle, f.LastCycle),
		fmt.Sprintf("Blocks: %d (%d zstd, %d raw)\n", f.Blocks.Count, f.Blocks.Zstd, f.Blocks.Raw),
		fmt.Sprintf("Dropped by the writer: %d of %d events emitted", *f.Dropped, *f.Emitted),
	} {
		require.Contains(t, text, want)
	}

	// Without unit stats, per-unit events are null, counted with -v; a
	// recovered file says so; several files get labels.
	jsonOf(t, 0, &rep, "info", "--json", ref("mixed-small.ctrace"), ref("crash.ctrace.crash"))
	require.Len(t, rep.Files, 2)
	require.Equal(t, []string{"mixed-small", "crash.ctrace.crash"}, []string{rep.Files[0].Label, rep.Files[1].Label})
	require.Nil(t, rep.Files[0].Units[0].Events)
	require.Nil(t, rep.Files[0].Emitted)
	require.True(t, rep.Files[1].Recovered)
	require.True(t, strings.HasPrefix(rep.Files[1].Status, "recovered: "), rep.Files[1].Status)
	jsonOf(t, 0, &rep, "info", "-v", "--json", ref("mixed-small.ctrace"))
	var counted uint64
	for _, u := range rep.Files[0].Units {
		require.NotNil(t, u.Events)
		counted += *u.Events
	}
	require.Equal(t, rep.Files[0].Events, counted)

	// A recorded selection: how many units its patterns kept.
	sel := unitsTrace(t, "sel.ctrace", chronon.WithSelect("units=core1.*,core0.l2"))
	jsonOf(t, 0, &rep, "info", "--json", sel)
	m := rep.Files[0].Metadata
	require.Len(t, m, 1)
	require.Equal(t, "chronon.select", m[0].Key)
	require.Equal(t, 3, *m[0].UnitsKept)
	require.Equal(t, 6, *m[0].UnitsOf)
}

// diff --json: the units that differ, with the first difference and its
// context, the units of one run only, the counts; exit status as diff's.
func TestDiffJSON(t *testing.T) {
	a := namedTrace(t, "a.ctrace", []string{"u1", "u2"})
	b := namedTrace(t, "b.ctrace", []string{"u3", "u1"}) // u1's argument: 0 in a, 1 in b
	var rep diffReport
	jsonOf(t, 1, &rep, "diff", "--json", "--context", "2", a, b)
	require.Equal(t, a, rep.A)
	require.Equal(t, b, rep.B)
	require.False(t, rep.Equal)
	require.Equal(t, 1, rep.UnitsCompared)
	require.Equal(t, 1, rep.UnitsDiffer)
	require.Equal(t, 1, rep.OnlyInA)
	require.Equal(t, 1, rep.OnlyInB)
	require.Len(t, rep.Units, 3)
	u1, u2, u3 := rep.Units[0], rep.Units[1], rep.Units[2]
	require.Equal(t, diffUnit{Unit: "u2", Status: "only_in_a", A: &diffSide{Events: 100}}, u2)
	require.Equal(t, diffUnit{Unit: "u3", Status: "only_in_b", B: &diffSide{Events: 100}}, u3)
	require.Equal(t, "u1", u1.Unit)
	require.Equal(t, "differs", u1.Status)
	require.Equal(t, uint64(1), u1.Event)
	for s, side := range []*diffSide{u1.A, u1.B} {
		require.Equal(t, uint64(100), side.Events)
		require.NotNil(t, side.Cycle)
		require.Equal(t, uint64(0), *side.Cycle)
		require.Len(t, side.Context, 3, "the event and 2 after it")
		for i, l := range side.Context {
			require.Equal(t, uint64(i+1), l.Event)
			require.Regexp(t, fmt.Sprintf(`^\[ *%d\] u1: follow pc=0x%d s=x$`, i, s), l.Line)
		}
	}
	require.Equal(t, []diffFormat{{Format: "follow pc=0x{:x} s={}", A: 100, B: 100}}, u1.Formats)
	// The text says the same.
	code, text, _ := runTool("diff", "--context", "2", a, b)
	require.Equal(t, 1, code)
	require.Contains(t, text, "unit u1: first difference at event 1, cycle 0 in "+a+", cycle 0 in "+b+"\n")
	require.Contains(t, text, "1 of 1 units differ; 1 only in "+a+", 1 only in "+b+"\n")

	jsonOf(t, 0, &rep, "diff", "--json", a, a)
	require.True(t, rep.Equal)
	require.Empty(t, rep.Units)
	require.Equal(t, 2, rep.UnitsCompared)
}

// merge --json: the summary the line gives, as JSON, and the inputs.
func TestMergeJSON(t *testing.T) {
	dir := t.TempDir()
	a := namedTrace(t, "a.ctrace", []string{"x", "y"})
	b := namedTrace(t, "b.ctrace", []string{"z"})
	var rep mergeReport
	out := filepath.Join(dir, "m.ctrace")
	jsonOf(t, 0, &rep, "merge", "--json", "-o", out, a, b)
	require.Equal(t, out, rep.Output)
	require.Equal(t, uint64(300), rep.Events)
	require.Equal(t, []mergeInput{{File: a, Label: "a", Events: 200, Status: "complete"}, {File: b, Label: "b", Events: 100, Status: "complete"}}, rep.Inputs)
	require.Equal(t, rep.Blocks, rep.Copied+rep.Renumbered)
	code, line, _ := runTool("merge", "-o", filepath.Join(dir, "m2.ctrace"), a, b)
	require.Equal(t, 0, code)
	m := regexp.MustCompile(`: 2 files, (\d+) events, (\d+) blocks \((\d+) copied, (\d+) renumbered\), (\d+) bytes\n$`).FindStringSubmatch(line)
	require.NotNil(t, m, line)
	for i, v := range []int64{int64(rep.Events), int64(rep.Blocks), int64(rep.Copied), int64(rep.Renumbered), rep.Bytes} {
		require.Equal(t, strconv.FormatInt(v, 10), m[i+1])
	}
}

// stats --json: lists with nothing in them are [] (as the reference says),
// not null.
func TestStatsJSONEmptyLists(t *testing.T) {
	code, out, _ := runTool("stats", "--json", ref("raw.ctrace"))
	require.Equal(t, 0, code)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"units", "formats", "spans", "occupancy", "stages"} {
		require.NotNil(t, m[k], k)
		_, ok := m[k].([]any)
		require.True(t, ok, "%s is an array", k)
	}
	require.Empty(t, m["spans"])
}

// recover --json: what the lines say, as JSON.
func TestRecoverJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixed.ctrace")
	var rep recoverReport
	jsonOf(t, 0, &rep, "recover", "--json", ref("crash.ctrace.crash"), "-o", out)
	require.Equal(t, ref("crash.ctrace.crash"), rep.Input)
	require.Equal(t, out, rep.Output)
	require.True(t, rep.Recovered)
	require.True(t, strings.HasPrefix(rep.Status, "recovered: "), rep.Status)
	require.Empty(t, rep.LeftOut)
	r, err := mmapio.Open(out)
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, r.Footer().TotalEvents, rep.Events)
	require.Equal(t, len(r.Blocks()), rep.Blocks)
	require.Equal(t, r.Size(), rep.Bytes)
	code, text, _ := runTool("recover", ref("crash.ctrace.crash"), "-o", filepath.Join(t.TempDir(), "f2.ctrace"))
	require.Equal(t, 0, code)
	require.Contains(t, text, ref("crash.ctrace.crash")+": "+rep.Status+"\n")
	require.Contains(t, text, fmt.Sprintf(": %d blocks, %d events, %d bytes\n", rep.Blocks, rep.Events, rep.Bytes))
}
