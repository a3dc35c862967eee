package chronon_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// Formats of the selection tests: two named categories and the default one.
var (
	selOnce                      sync.Once
	selCatFetch, selCatMem       uint64
	selFetch, selMem, selDefault *chronon.Format2[uint64, uint32]
)

func selFormats(t testing.TB) {
	selOnce.Do(func() {
		var err error
		selCatFetch, err = chronon.RegisterCategory("selfetch", "selection test: fetch")
		require.NoError(t, err)
		selCatMem, err = chronon.RegisterCategory("selmem", "selection test: memory")
		require.NoError(t, err)
		selFetch = chronon.MustFormat2[uint64, uint32]("sfetch pc=0x{:x} n={}", chronon.WithCategory(selCatFetch))
		selMem = chronon.MustFormat2[uint64, uint32]("smem addr=0x{:x} n={}", chronon.WithCategory(selCatMem))
		selDefault = chronon.MustFormat2[uint64, uint32]("splain a={} n={}")
	})
}

var selUnits = []string{"core0.fetch", "core0.l2", "core1.fetch", "core1.l2", "core2.fetch"}

// writeSelTrace writes the same events with the given options: every unit
// emits every format at cycles 0..1999 (interleaved so that each block
// spans the window's edges).
func writeSelTrace(t *testing.T, path string, opts ...chronon.Option) {
	t.Helper()
	selFormats(t)
	tr, err := chronon.Create(path, append([]chronon.Option{chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096)}, opts...)...)
	require.NoError(t, err)
	var us []*chronon.Unit
	for _, n := range selUnits {
		u, err := tr.NewUnit(n)
		require.NoError(t, err)
		us = append(us, u)
	}
	for c := uint64(0); c < 2000; c++ {
		for i, u := range us {
			selFetch.Emit(u, c, c*4, uint32(i))
			selMem.Emit(u, c, c*64, uint32(i))
			if c%3 == 0 {
				selDefault.Emit(u, c, c, uint32(i))
			}
		}
	}
	require.NoError(t, tr.Close())
}

// perUnit splits dump lines by unit, each unit's in file order: the order
// of one cycle's events across units depends on how blocks were cut, which
// a selection changes; a unit's own order does not.
func perUnit(dump string) map[string][]string {
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

func dumpOf(t *testing.T, path string, q func(r *mmapio.Reader) mmapio.Query) (string, *mmapio.Reader) {
	t.Helper()
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	var b bytes.Buffer
	_, err = tracetext.WriteDump(&b, r, q(r), 0)
	require.NoError(t, err)
	return b.String(), r
}

// TestSelectEqualsFilter: a trace recorded with units and a cycle window
// selected dumps exactly as the full trace filtered by the same units and
// window; unselected units are in the schema with no events; the selection
// is in the metadata.
func TestSelectEqualsFilter(t *testing.T) {
	t.Setenv(chronon.SelectEnv, "")
	dir := t.TempDir()
	full, sel := filepath.Join(dir, "full.ctrace"), filepath.Join(dir, "sel.ctrace")
	writeSelTrace(t, full)
	t.Setenv(chronon.SelectEnv, " units=core1.*, core0.l2 ; cycles=500-1500 ")
	writeSelTrace(t, sel)

	want, fr := dumpOf(t, full, func(r *mmapio.Reader) mmapio.Query {
		var ids []uint16
		for _, n := range []string{"core0.l2", "core1.fetch", "core1.l2"} {
			ids = append(ids, r.UnitsNamed(n)...)
		}
		return mmapio.Query{}.WithCycles(500, 1500).WithUnits(ids...)
	})
	got, sr := dumpOf(t, sel, func(*mmapio.Reader) mmapio.Query { return mmapio.Query{} })
	require.NotEmpty(t, want)
	require.Equal(t, strings.Count(want, "\n"), 3*1001*2+3*334, "the filter's own count")
	require.Equal(t, perUnit(want), perUnit(got))

	require.Len(t, sr.Units(), len(fr.Units()), "unselected units are in the schema")
	counts := map[string]uint64{}
	for _, s := range sr.UnitStats() {
		counts[sr.UnitName(s.UnitID)] = s.Written + s.Emitted
	}
	for _, n := range []string{"core0.fetch", "core2.fetch"} {
		require.Zero(t, counts[n], "unselected unit %s has events", n)
	}
	md := map[string]string{}
	for _, kv := range sr.Metadata() {
		md[kv.Key] = kv.Value
	}
	require.Equal(t, "units=core1.*,core0.l2;cycles=500-1500", md[chronon.MetadataSelect])
	for _, kv := range fr.Metadata() {
		require.NotEqual(t, chronon.MetadataSelect, kv.Key, "a full trace records no selection")
	}
}

// TestSelectCategories: categories=... keeps the named categories only
// ("default" names CategoryDefault), on the selected units.
func TestSelectCategories(t *testing.T) {
	t.Setenv(chronon.SelectEnv, "")
	dir := t.TempDir()
	full := filepath.Join(dir, "full.ctrace")
	writeSelTrace(t, full)
	all, _ := dumpOf(t, full, func(*mmapio.Reader) mmapio.Query { return mmapio.Query{} })
	for _, tc := range []struct{ sel, keep string }{
		{"categories=selmem", "smem"},
		{"categories=selfetch,default", "sfetch|splain"},
		{"units=core2.*;categories=selfetch", "sfetch"},
	} {
		p := filepath.Join(dir, "cat.ctrace")
		writeSelTrace(t, p, chronon.WithSelect(tc.sel))
		got, _ := dumpOf(t, p, func(*mmapio.Reader) mmapio.Query { return mmapio.Query{} })
		var want strings.Builder
		for _, line := range strings.SplitAfter(all, "\n") {
			ok := false
			for _, k := range strings.Split(tc.keep, "|") {
				ok = ok || strings.Contains(line, ": "+k+" ")
			}
			if ok && (!strings.HasPrefix(tc.sel, "units=") || strings.Contains(line, "core2.fetch")) {
				want.WriteString(line)
			}
		}
		require.NotZero(t, want.Len(), tc.sel)
		require.Equal(t, perUnit(want.String()), perUnit(got), tc.sel)
	}
}

// TestSelectMalformed: a bad CHRONON_TRACE or WithSelect is an error at
// Create naming the variable and the bad part, and no file is written;
// WithSelect replaces the environment.
func TestSelectMalformed(t *testing.T) {
	selFormats(t)
	dir := t.TempDir()
	for _, tc := range []struct{ val, part string }{
		{"units", `"units" is not key=value`},
		{"unit=core0", `unknown key "unit"`},
		{"cycles=10-5", "ends before it starts"},
		{"cycles=abc-5", `first cycle "abc"`},
		{"cycles=5-x", `last cycle "x"`},
		{"cycles=1-2,3-4", "not one window"},
		{"units=core[", "bad pattern"},
		{"units==", "no name after it"},
		{"units=a,,b", "empty item"},
		{"categories=", "empty value"},
		{"units=a;units=b", "given twice"},
		{"categories=nosuchcat", `"nosuchcat" is not a registered category`},
		{";", "no key=value"},
	} {
		p := filepath.Join(dir, "bad.ctrace")
		t.Setenv(chronon.SelectEnv, tc.val)
		_, err := chronon.Create(p)
		require.Error(t, err, tc.val)
		require.Contains(t, err.Error(), "CHRONON_TRACE=", tc.val)
		require.Contains(t, err.Error(), tc.part, tc.val)
		_, serr := os.Stat(p)
		require.True(t, os.IsNotExist(serr), "%s: Create wrote a file", tc.val)

		_, err = chronon.Create(p, chronon.WithSelect(tc.val+";"))
		require.Error(t, err, tc.val)
		require.Contains(t, err.Error(), "WithSelect(", tc.val)
	}
	// WithSelect("") wins over a bad environment.
	t.Setenv(chronon.SelectEnv, "bogus")
	tr, err := chronon.Create(filepath.Join(dir, "ok.ctrace"), chronon.WithSelect(""))
	require.NoError(t, err)
	require.NoError(t, tr.Close())
}

// TestSelectWindowAllocs: an emit outside the window, inside it, and on an
// unselected unit allocate nothing.
func TestSelectWindowAllocs(t *testing.T) {
	selFormats(t)
	tr, err := chronon.Create(filepath.Join(t.TempDir(), "a.ctrace"), chronon.WithSelect("units=in;cycles=100-200"))
	require.NoError(t, err)
	in, err := tr.NewUnit("in")
	require.NoError(t, err)
	out, err := tr.NewUnit("out")
	require.NoError(t, err)
	require.Zero(t, out.Mask(), "unselected unit's mask")
	selFetch.Emit(in, 150, 1, 1) // the first emit allocates the ring
	for _, c := range []uint64{0, 99, 150, 201, 1 << 60} {
		require.Zero(t, testing.AllocsPerRun(100, func() {
			selFetch.Emit(in, c, 1, 2)
			selFetch.Emit(out, c, 1, 2)
		}), "cycle %d", c)
	}
	require.NoError(t, tr.Close())
}

// TestSelectNamesAsWritten: units= selects names as users write them. A
// backslash escapes the next character (core\1.fetch is core1.fetch, as
// trace_reader --unit reads it); a name with brackets selects the unit of
// that exact name (and whatever the brackets match as a pattern); =NAME is
// that name only; \, keeps a comma in a name.
func TestSelectNamesAsWritten(t *testing.T) {
	names := []string{"core1.fetch", "ROB[0].Top.incoming", "ROB[1].Top.incoming", "ROB0.Top.incoming", "q,r"}
	for _, c := range []struct {
		sel  string
		want []string
	}{
		{`units=core\1.fetch`, []string{"core1.fetch"}},
		{"units=ROB[0].Top.incoming", []string{"ROB[0].Top.incoming", "ROB0.Top.incoming"}},
		{"units==ROB[0].Top.incoming", []string{"ROB[0].Top.incoming"}},
		{`units=ROB\[?].Top.*`, []string{"ROB[0].Top.incoming", "ROB[1].Top.incoming"}},
		{`units=q\,r,core1.*`, []string{"core1.fetch", "q,r"}},
	} {
		t.Setenv(chronon.SelectEnv, c.sel)
		path := filepath.Join(t.TempDir(), "s.ctrace")
		tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
		require.NoError(t, err, c.sel)
		var got []string
		for _, n := range names {
			u, err := tr.NewUnit(n)
			require.NoError(t, err)
			if u.Enabled(chronon.CategoryDefault) {
				got = append(got, n)
			}
		}
		require.NoError(t, tr.Close())
		require.Equal(t, c.want, got, c.sel)
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		for _, kv := range r.Metadata() {
			if kv.Key == chronon.MetadataSelect {
				require.Equal(t, c.sel, kv.Value, "recorded as written: its escapes are what a reader matches")
			}
		}
		require.NoError(t, r.Close())
	}
}
