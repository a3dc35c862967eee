package export

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

type vSlice struct {
	track      string
	start, end uint64
}

// slicesOf pairs the begins and ends of a validated trace per track.
func slicesOf(v *vTrace) []vSlice {
	return sortSlices(pairSlices(v))
}

func pairSlices(v *vTrace) []vSlice {
	stacks := map[uint64][]uint64{}
	var out []vSlice
	for _, e := range v.events {
		switch e.typ {
		case typeSliceBegin:
			stacks[e.track] = append(stacks[e.track], e.ts)
		case typeSliceEnd:
			s := stacks[e.track]
			out = append(out, vSlice{v.trackPath(e.track), s[len(s)-1], e.ts})
			stacks[e.track] = s[:len(s)-1]
		}
	}
	return out
}

func sortSlices(out []vSlice) []vSlice {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end < b.end
		}
		return a.track < b.track
	})
	return out
}

// Spans begun before a --cycles window and still open at its start are
// clipped to it (begun at the window's start), in both formats; spans that
// ended before it and events before it are not exported. Before the fix the
// complete spans were dropped and the begin/end span's end was unmatched.
func TestExportWindowClipsOpenSpans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "win.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.mshr")
	require.NoError(t, err)
	sp := chronon.MustSpan("miss")
	note := chronon.MustFormat1[uint64]("note {}")
	sp.Complete(u, 50, 10, 0, 0)  // ends before the window: not exported
	sp.Complete(u, 90, 20, 0, 0)  // [90, 110] -> [100, 110]
	sp.Complete(u, 95, 5, 0, 0)   // ends at the window's first cycle -> [100, 100]
	sp.Begin(u, 95, 1, 0)         // begin/end span [95, 105] -> [100, 105]
	note.Emit(u, 97, 1)           // before the window
	sp.Complete(u, 99, 300, 2, 0) // open past the window: [100, 399]
	sp.Complete(u, 120, 3, 0, 0)  // inside the window
	sp.End(u, 105, 1, 0)
	note.Emit(u, 150, 2)
	note.Emit(u, 250, 3) // after the window
	require.NoError(t, tr.Close())

	q := mmapio.Query{}.WithCycles(100, 200)
	want := []vSlice{
		{"core0.mshr.lane 0", 100, 100},
		{"core0.mshr.lane 1", 100, 105},
		{"core0.mshr.lane 0", 100, 110},
		{"core0.mshr.lane 2", 100, 399},
		{"core0.mshr.lane 0", 120, 123},
	}
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		res, out := exportFile(t, path, q, WithFormat(format))
		var v *vTrace
		if format == FormatPerfetto {
			v, err = validatePerfetto(out)
		} else {
			v, err = validateChrome(out)
		}
		require.NoError(t, err, format)
		require.Equal(t, want, slicesOf(v), format)
		require.Equal(t, uint64(4), res.ClippedSpans, format)
		require.Equal(t, uint64(3), res.Events, format) // the window's: end at 105, complete at 120, note at 150
		require.Zero(t, res.UnmatchedEnds, format)
		for _, e := range v.events {
			if e.name == "note" {
				require.Equal(t, uint64(150), e.ts, "only the window's instants")
			}
		}
	}
}

// The same on pipesim, against the whole export: the window's slices are
// the whole export's slices clipped to the window.
func TestExportWindowMatchesClippedWhole(t *testing.T) {
	trace := pipesimTrace(t, 400)
	_, wout := exportFile(t, trace, mmapio.Query{})
	wv, err := validatePerfetto(wout)
	require.NoError(t, err)
	const a, b = 150, 250
	var want []vSlice
	for _, s := range pairSlices(wv) {
		if s.start <= b && s.end >= a {
			s.start = max(s.start, a)
			want = append(want, s)
		}
	}
	res, out := exportFile(t, trace, mmapio.Query{}.WithCycles(a, b))
	v, err := validatePerfetto(out)
	require.NoError(t, err)
	got := slicesOf(v)
	want = sortSlices(want)
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.Equal(t, want[i], got[i], "slice %d", i)
	}
	require.NotZero(t, res.ClippedSpans)
}

// A span begun and never ended (within the window) closes at the last event
// exported, not at the far end of a complete span on another track.
func TestUnterminatedSpanClosesAtLastEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "open.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	exec, err := tr.NewUnit("core0.exec")
	require.NoError(t, err)
	l2, err := tr.NewUnit("core0.l2")
	require.NoError(t, err)
	busy := chronon.MustSpan("busy")
	miss := chronon.MustSpan("miss")
	miss.Complete(l2, 7, 30, 0, 0) // [7, 37]
	busy.Begin(exec, 20, 1, 0)     // never ended in the window
	busy.End(exec, 22, 1, 0)
	require.NoError(t, tr.Close())

	want := []vSlice{
		{"core0.l2.lane 0", 7, 37},
		{"core0.exec.lane 1", 20, 20},
	}
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		res, out := exportFile(t, path, mmapio.Query{}.WithCycles(0, 20), WithFormat(format))
		var v *vTrace
		if format == FormatPerfetto {
			v, err = validatePerfetto(out)
		} else {
			v, err = validateChrome(out)
		}
		require.NoError(t, err, format)
		require.ElementsMatch(t, want, slicesOf(v), format)
		require.Equal(t, uint64(1), res.UnterminatedSpans, format)
	}
}
