package analysis

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// alignedReport has names of very different lengths in every table, spans
// with histograms between their rows, and several notes.
func alignedReport() *Report {
	long := "system.cluster3.core17.backend.load_store_unit.miss_status_holding_register"
	d := Dist{Count: 123456, Min: 1, Mean: 2.5, P50: 2, P99: 40, Max: 1234567,
		Histogram: []Bucket{{Lo: 1, Hi: 1, Count: 10}, {Lo: 2, Hi: 3, Count: 20}}}
	return &Report{
		Window: Window{Start: 0, End: 999, Cycles: 1000}, Events: 42,
		Units: []UnitStats{{ID: 1, Name: "cpu", Events: 7, Last: 9, PerKCycles: 7},
			{ID: 2, Name: long, Events: 1234567890, First: 3, Last: 999, PerKCycles: 1234.5}, {ID: 3, Events: 1}},
		Formats: []FormatStats{{ID: 1, Kind: "instant", Format: "a={}", Events: 1},
			{ID: 1000, Kind: "span-complete", Format: "x", Events: 99999999}},
		Spans: []SpanStats{{Unit: "cpu", Span: "s", Dist: d}, {Unit: long, Span: "refill", Dist: Dist{Count: 1, Max: 9}},
			{Unit: "é.ü", Span: "décode", Dist: d}},
		Occupancy: []OccupancyStats{{Unit: "cpu", Busy: 5, Occupancy: 0.5}, {Unit: long, Lane: "12", Busy: 123456, Occupancy: 1}},
		Stages:    []StageStats{{From: "cpu", To: long, Dist: d}, {From: long, To: "cpu", Dist: Dist{Count: 1}}},
		Notes:     map[string]uint64{"unmatched_span_ends": 1, "spans_open_at_end": 2, "a_note": 3},
	}
}

// Every table of `stats` keeps its columns aligned: in each section the
// header and every row are equally wide (the last column of these tables
// is a number, right-aligned), each column starts where its header does,
// and a span's histogram line between rows does not restart the
// alignment. The tabwriter this replaced aligned each span row on its own.
func TestStatsTextAligned(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteText(&b, alignedReport()))
	out := b.String()
	sections := strings.Split(out, "\n\n")
	checked := 0
	for _, sec := range sections {
		lines := strings.Split(strings.TrimRight(sec, "\n"), "\n")
		title := lines[0]
		if title == "Notes" || strings.HasPrefix(title, "Window") {
			continue
		}
		header := lines[1]
		checked++
		// Cells are separated by two or more blanks (no cell here holds
		// two blanks). In every column either all cells start at the same
		// place (left-aligned) or all end at the same place (right-aligned).
		starts, ends := map[int]map[int]bool{}, map[int]map[int]bool{}
		for _, l := range lines[1:] {
			require.False(t, strings.HasSuffix(l, " "), "%s: trailing blanks in %q", title, l)
			if strings.HasPrefix(l, "    histogram") {
				continue
			}
			if title != "Formats" { // its last column is the format text, not padded
				require.Equal(t, utf8.RuneCountInString(header), utf8.RuneCountInString(l), "%s: %q is not as wide as %q", title, l, header)
			}
			cells := cellSpans(l)
			require.Len(t, cells, len(cellSpans(header)), "%s: %q", title, l)
			for i, c := range cells {
				if starts[i] == nil {
					starts[i], ends[i] = map[int]bool{}, map[int]bool{}
				}
				starts[i][c[0]], ends[i][c[1]] = true, true
			}
		}
		for i := range starts {
			require.True(t, len(starts[i]) == 1 || len(ends[i]) == 1, "%s: column %d is not aligned: starts %v, ends %v\n%s", title, i, starts[i], ends[i], sec)
		}
	}
	require.Equal(t, 5, checked, out)
	require.Contains(t, out, "  s       123456    1  2.50    2   40  1234567\n    histogram  1:10 2-3:20\n")
	require.Contains(t, out, "  refill       1    0  0.00    0    0        9\n    histogram\n")
	require.Contains(t, out, "\nFormats\n    id  kind             events  first cycle  last cycle  per 1k cycles  format\n     1  instant               1            0           0           0.00  a={}\n")
	require.True(t, strings.HasSuffix(out, "\nNotes\n  a note: 3\n  spans open at end: 2\n  unmatched span ends: 1\n"), out)
}

// cellSpans returns the [start, end) rune positions of l's cells.
func cellSpans(l string) [][2]int {
	r := []rune(l)
	var out [][2]int
	for i := 0; i < len(r); {
		if r[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(r) && !(r[j] == ' ' && (j+1 == len(r) || r[j+1] == ' ')) {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// The text depends only on the report: notes come from a map, so the old
// code printed them in a different order from run to run.
func TestStatsTextDeterministic(t *testing.T) {
	var first strings.Builder
	require.NoError(t, WriteText(&first, alignedReport()))
	for range 50 {
		var b strings.Builder
		require.NoError(t, WriteText(&b, alignedReport()))
		require.Equal(t, first.String(), b.String())
	}
}
