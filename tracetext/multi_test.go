package tracetext_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
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

const refDir = "../testdata/reference"

func refPath(name string) string { return filepath.Join(refDir, name) }

// refDump returns the text the original trace_reader printed for a vector.
func refDump(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(refPath(name))
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return b
}

// writeW1T writes a W1 trace of n events over units units from seed to
// dir/name, with metadata md.
func writeW1T(t testing.TB, dir, name string, n, units int, seed uint64, opts ctracetest.Options, md ...schema.KeyValue) string {
	t.Helper()
	s := ctracetest.W1Schema(units)
	s.Metadata = md
	b, err := ctracetest.Build(s, ctracetest.W1Events(n, units, seed), opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// labelLine puts label into a single-file dump line: "[c] unit: msg"
// becomes "[c] label/unit: msg"; "[c] msg" (no unit name) stays.
func labelLine(line, label string, named bool) string {
	head, rest := line[:13], line[13:]
	if named {
		return head + label + "/" + rest
	}
	return line
}

func multiFiles(t *testing.T) []string {
	dir := t.TempDir()
	ours := ctracetest.W1BenchOptions()
	return []string{
		writeW1T(t, dir, "a.ctrace", 30000, 16, 1, ours),
		writeW1T(t, dir, "b.ctrace", 20000, 5, 7, ctracetest.Options{BlockSize: 4096, Compress: true, Level: zstd.SpeedFastest, NoUnitSets: true}),
		writeW1T(t, dir, "c.ctrace", 25000, 9, 3, ours, schema.KeyValue{Key: "rank", Value: "3"}),
		refPath("mixed-small.ctrace"), // the original C++ writer: unit 0, unknown format id
		refPath("multiblock.ctrace"),
	}
}

// expectedTimeline merges the files' own dumps as the timeline must:
// stable by cycle, ties in file order then each file's order. keep filters
// per-file lines (nil: all).
type tlLine struct {
	cycle uint64
	text  string
}

func expectedTimeline(t *testing.T, rs []*mmapio.Reader, labels []string, q mmapio.Query, keep func(file int, ev *mmapio.Event) bool) string {
	t.Helper()
	var all []tlLine
	for i, r := range rs {
		for ev := range r.Events(q) {
			if keep != nil && !keep(i, &ev) {
				continue
			}
			line := string(tracetext.AppendLine(nil, r, &ev))
			if len(rs) > 1 {
				line = labelLine(line, labels[i], r.UnitName(ev.UnitID) != "")
			}
			all = append(all, tlLine{ev.Cycle, line})
		}
		require.NoError(t, r.Err())
	}
	slices.SortStableFunc(all, func(a, b tlLine) int {
		switch {
		case a.cycle < b.cycle:
			return -1
		case a.cycle > b.cycle:
			return 1
		}
		return 0
	})
	var sb strings.Builder
	for _, l := range all {
		sb.WriteString(l.text)
	}
	return sb.String()
}

func TestMultiTimeline(t *testing.T) {
	paths := multiFiles(t)
	m, err := mmapio.OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, []string{"a", "b", "rank3", "mixed-small", "multiblock"}, []string{m.Label(0), m.Label(1), m.Label(2), m.Label(3), m.Label(4)})
	want := expectedTimeline(t, m.Readers(), mmapio.Labels(m.Readers()), mmapio.Query{}, nil)

	var buf bytes.Buffer
	n, err := tracetext.WriteMultiDump(&buf, m, 0)
	require.NoError(t, err)
	require.Equal(t, strings.Count(want, "\n"), n)
	require.Equal(t, want, buf.String())
	require.Contains(t, want, "] rank3/core0.fetch: fetch")
	require.Contains(t, want, "] b/core0.decode: decode")

	// The range function and AppendMultiLine give the same text.
	var got []byte
	for file, ev := range m.Events() {
		got = tracetext.AppendMultiLine(got, m, file, &ev)
	}
	require.NoError(t, m.Err())
	require.Equal(t, want, string(got))

	// A limit stops there.
	buf.Reset()
	n, err = tracetext.WriteMultiDump(&buf, m, 1234)
	require.NoError(t, err)
	require.Equal(t, 1234, n)
	require.True(t, strings.HasPrefix(want, buf.String()))
}

func TestMultiSeeks(t *testing.T) {
	m, err := mmapio.OpenAll(multiFiles(t))
	require.NoError(t, err)
	defer m.Close()
	labels := mmapio.Labels(m.Readers())

	// A cycle window applies to every file.
	q := mmapio.Query{}.WithCycles(3000, 4000)
	want := expectedTimeline(t, m.Readers(), labels, mmapio.Query{}, func(_ int, ev *mmapio.Event) bool { return ev.Cycle >= 3000 && ev.Cycle <= 4000 })
	require.NotEmpty(t, want)
	var buf bytes.Buffer
	_, err = tracetext.WriteMultiDump(&buf, m, 0, q)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())

	// A unit name matches labelled names: "b/core0" only in file b, and
	// "core0.fetch" in every W1 file.
	ids, n := m.UnitsNamed("b/core0")
	require.Equal(t, 5, n)
	require.Empty(t, ids[0])
	require.Len(t, ids[1], 5)
	want = expectedTimeline(t, m.Readers(), labels, mmapio.Query{}, func(f int, ev *mmapio.Event) bool {
		return f == 1 && ev.Cycle >= 3000 && ev.Cycle <= 4000
	})
	buf.Reset()
	_, err = tracetext.WriteMultiDump(&buf, m, 0, m.Queries(q, ids)...)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())

	ids, n = m.UnitsNamed("core0.fetch")
	require.Equal(t, 5, n) // a, b, rank3, mixed-small, multiblock
	want = expectedTimeline(t, m.Readers(), labels, mmapio.Query{}, func(f int, ev *mmapio.Event) bool {
		return slices.Contains(ids[f], ev.UnitID)
	})
	buf.Reset()
	_, err = tracetext.WriteMultiDump(&buf, m, 0, m.Queries(mmapio.Query{}, ids)...)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())
}

func TestMultiOneFileIsTheReader(t *testing.T) {
	for _, p := range []string{refPath("mixed-small.ctrace"), refPath("multiblock.ctrace")} {
		m, err := mmapio.OpenAll([]string{p})
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = tracetext.WriteMultiDump(&buf, m, 0)
		require.NoError(t, err)
		require.Equal(t, string(refDump(t, filepath.Base(strings.TrimSuffix(p, ".ctrace"))+".dump.txt.gz")), buf.String())
		require.Equal(t, "", m.Label(0))
		require.Equal(t, "core0.fetch", m.UnitName(0, m.Reader(0).UnitsNamed("core0.fetch")[0]))
		require.NoError(t, m.Close())
	}
}
