package mmapio

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

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

// expectedTimeline merges the files' own dumps as the timeline must:
// stable by cycle, ties in file order then each file's order. keep filters
// per-file lines (nil: all).
type tlLine struct {
	cycle uint64
	text  string
}

func expectedTimeline(t *testing.T, rs []*Reader, labels []string, q Query, keep func(file int, ev *Event) bool) string {
	t.Helper()
	var all []tlLine
	for i, r := range rs {
		for ev := range r.Events(q) {
			if keep != nil && !keep(i, &ev) {
				continue
			}
			line := string(r.AppendLine(nil, &ev))
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

func TestMultiTimeline(t *testing.T) {
	paths := multiFiles(t)
	m, err := OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, []string{"a", "b", "rank3", "mixed-small", "multiblock"}, []string{m.Label(0), m.Label(1), m.Label(2), m.Label(3), m.Label(4)})
	want := expectedTimeline(t, m.Readers(), Labels(m.Readers()), Query{}, nil)

	var buf bytes.Buffer
	n, err := m.WriteDump(&buf, 0)
	require.NoError(t, err)
	require.Equal(t, strings.Count(want, "\n"), n)
	require.Equal(t, want, buf.String())
	require.Contains(t, want, "] rank3/core0.fetch: fetch")
	require.Contains(t, want, "] b/core0.decode: decode")

	// The range function and AppendLine give the same text.
	var got []byte
	for ev := range m.Events() {
		got = m.AppendLine(got, &ev)
	}
	require.NoError(t, m.Err())
	require.Equal(t, want, string(got))

	// A limit stops there.
	buf.Reset()
	n, err = m.WriteDump(&buf, 1234)
	require.NoError(t, err)
	require.Equal(t, 1234, n)
	require.True(t, strings.HasPrefix(want, buf.String()))
}

func TestMultiSeeks(t *testing.T) {
	m, err := OpenAll(multiFiles(t))
	require.NoError(t, err)
	defer m.Close()
	labels := Labels(m.Readers())

	// A cycle window applies to every file.
	q := Query{}.WithCycles(3000, 4000)
	want := expectedTimeline(t, m.Readers(), labels, Query{}, func(_ int, ev *Event) bool { return ev.Cycle >= 3000 && ev.Cycle <= 4000 })
	require.NotEmpty(t, want)
	var buf bytes.Buffer
	_, err = m.WriteDump(&buf, 0, q)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())

	// A unit name matches labelled names: "b/core0" only in file b, and
	// "core0.fetch" in every W1 file.
	ids, n := m.UnitsNamed("b/core0")
	require.Equal(t, 5, n)
	require.Empty(t, ids[0])
	require.Len(t, ids[1], 5)
	want = expectedTimeline(t, m.Readers(), labels, Query{}, func(f int, ev *Event) bool {
		return f == 1 && ev.Cycle >= 3000 && ev.Cycle <= 4000
	})
	buf.Reset()
	_, err = m.WriteDump(&buf, 0, m.Queries(q, ids)...)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())

	ids, n = m.UnitsNamed("core0.fetch")
	require.Equal(t, 5, n) // a, b, rank3, mixed-small, multiblock
	want = expectedTimeline(t, m.Readers(), labels, Query{}, func(f int, ev *Event) bool {
		return slices.Contains(ids[f], ev.UnitID)
	})
	buf.Reset()
	_, err = m.WriteDump(&buf, 0, m.Queries(Query{}, ids)...)
	require.NoError(t, err)
	require.Equal(t, want, buf.String())
}

func TestMultiOneFileIsTheReader(t *testing.T) {
	for _, p := range []string{refPath("mixed-small.ctrace"), refPath("multiblock.ctrace")} {
		m, err := OpenAll([]string{p})
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = m.WriteDump(&buf, 0)
		require.NoError(t, err)
		require.Equal(t, string(refDump(t, filepath.Base(strings.TrimSuffix(p, ".ctrace"))+".dump.txt.gz")), buf.String())
		require.Equal(t, "", m.Label(0))
		require.Equal(t, "core0.fetch", m.UnitName(0, m.Reader(0).UnitsNamed("core0.fetch")[0]))
		require.NoError(t, m.Close())
	}
}

func TestMultiLabelsClash(t *testing.T) {
	dir := t.TempDir()
	d1, d2 := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	o := ctracetest.W1BenchOptions()
	paths := []string{
		writeW1T(t, d1, "run.ctrace", 100, 2, 1, o),
		writeW1T(t, d2, "run.ctrace", 100, 2, 2, o),
		writeW1T(t, dir, "r.ctrace", 100, 2, 3, o, schema.KeyValue{Key: "rank", Value: "0"}),
		writeW1T(t, dir, "s.ctrace", 100, 2, 4, o, schema.KeyValue{Key: "rank", Value: "0"}),
	}
	m, err := OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, []string{"run", "run#2", "rank0", "rank0#2"}, Labels(m.Readers()))
	require.Equal(t, "run#2/core0.fetch", m.UnitName(1, 1))
}

func TestOpenAllErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, []byte("not a trace at all, long enough to hold a header .................."), 0o644))
	_, err := OpenAll([]string{refPath("raw.ctrace"), bad})
	require.ErrorIs(t, err, ErrNotATrace)
	require.Contains(t, err.Error(), bad)
}
