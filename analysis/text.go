package analysis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chronon-sim/chronon-go/tracetext"
)

// esc escapes control characters in names and format strings from the file
// (a forged line, a terminal escape sequence, a tab that breaks the
// columns), as every text output of the reader does: tracetext.EscapeText.
func esc(s string) string { return tracetext.EscapeText(s) }

// WriteJSON writes the report as indented JSON, for scripts.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the report as aligned tables for people. Every table's
// column widths are computed over all of its rows (a long unit name widens
// its column instead of pushing one row out of line), names are
// left-aligned and numbers right-aligned, and the output depends only on
// the report (notes are sorted).
func WriteText(w io.Writer, rep *Report) error {
	bw := bufio.NewWriter(w)
	if rep.Window.TimeBase != "" {
		fmt.Fprintf(bw, "Window: cycles %d - %d (%d cycles of %s: %s), %d events\n", rep.Window.Start, rep.Window.End, rep.Window.Cycles,
			rep.Window.TimeBase, seconds(rep.Window.Seconds), rep.Events)
	} else {
		fmt.Fprintf(bw, "Window: cycles %d - %d (%d cycles), %d events\n", rep.Window.Start, rep.Window.End, rep.Window.Cycles, rep.Events)
	}
	// A column of rates per second of simulated time when the trace has a
	// time base: without one the tables are as they always were.
	timed := false
	for _, u := range rep.Units {
		timed = timed || u.PerSecond != 0
	}
	tick := tickName(rep)
	perK := "per 1k " + tick
	t := newTable("Units", "<unit", "events", "first cycle", "last cycle", perK)
	if timed {
		t = newTable("Units", "<unit", "events", "first cycle", "last cycle", perK, "per second")
	}
	for _, u := range rep.Units {
		name := esc(u.Name)
		if name == "" {
			name = fmt.Sprintf("[%d]", u.ID)
		}
		if timed {
			t.row(name, u64(u.Events), u64(u.First), u64(u.Last), f2(u.PerKCycles), g4(u.PerSecond))
		} else {
			t.row(name, u64(u.Events), u64(u.First), u64(u.Last), f2(u.PerKCycles))
		}
	}
	t.write(bw)

	t = newTable("Formats", "id", "<kind", "events", "first cycle", "last cycle", perK, "<format")
	if timed {
		t = newTable("Formats", "id", "<kind", "events", "first cycle", "last cycle", perK, "per second", "<format")
	}
	for _, f := range rep.Formats {
		if timed {
			t.row(strconv.FormatUint(uint64(f.ID), 10), f.Kind, u64(f.Events), u64(f.First), u64(f.Last), f2(f.PerKCycles), g4(f.PerSecond), esc(f.Format))
		} else {
			t.row(strconv.FormatUint(uint64(f.ID), 10), f.Kind, u64(f.Events), u64(f.First), u64(f.Last), f2(f.PerKCycles), esc(f.Format))
		}
	}
	t.write(bw)

	if len(rep.Spans) > 0 {
		t = newTable("Spans (duration in "+tick+")", append([]string{"<unit", "<span"}, distHeader...)...)
		for _, s := range rep.Spans {
			t.row(append([]string{esc(s.Unit), esc(s.Span)}, distCells(s.Dist)...)...)
			t.trailer(strings.TrimRight("  histogram  "+histText(s.Histogram), " "))
		}
		t.write(bw)
	}
	if len(rep.Occupancy) > 0 {
		t = newTable("Occupancy ("+tick+" with a span open / window)", "<unit", "<lane", "busy "+tick, "occupancy")
		for _, o := range rep.Occupancy {
			lane := "all"
			if o.Lane != "" {
				lane = esc(o.Lane)
			}
			t.row(esc(o.Unit), lane, u64(o.Busy), strconv.FormatFloat(100*o.Occupancy, 'f', 2, 64)+"%")
		}
		t.write(bw)
	}
	if len(rep.Stages) > 0 {
		t = newTable("Stages ("+tick+" from one unit to the next along flows)", append([]string{"<from", "<to"}, distHeader...)...)
		for _, s := range rep.Stages {
			t.row(append([]string{esc(s.From), esc(s.To)}, distCells(s.Dist)...)...)
		}
		t.write(bw)
	}
	for _, tr := range rep.Trees {
		more := ""
		if tr.Childless > 0 {
			more = ", " + u64(tr.Childless) + " more without"
		}
		fmt.Fprintf(bw, "\nTrees of %s (%d requests with sub-requests%s: spans linked by parent ids)\n", esc(tr.Root), tr.Trees, more)
		t = newTable("", append([]string{"<per tree"}, distHeader...)...)
		t.row(append([]string{"spans"}, distCells(tr.Spans)...)...)
		t.row(append([]string{"fan-out"}, distCells(tr.FanOut)...)...)
		t.row(append([]string{"depth"}, distCells(tr.Depth)...)...)
		t.row(append([]string{"latency"}, distCells(tr.Latency)...)...)
		t.writeRows(bw)
		t = newTable("  Critical path: where the requests' latency went", "<unit", "<span", tick, "share")
		for _, c := range tr.Critical {
			t.row(esc(c.Unit), esc(c.Span), u64(c.Cycles), strconv.FormatFloat(100*c.Share, 'f', 2, 64)+"%")
		}
		t.write(bw)
		t = newTable("  Slowest request's critical path", "<unit", "<span", "from", "to", tick)
		for _, p := range tr.Slowest {
			t.row(esc(p.Unit), esc(p.Span), u64(p.Start), u64(p.End), u64(p.End-p.Start))
		}
		t.write(bw)
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(bw, "\nNotes")
		keys := make([]string, 0, len(rep.Notes))
		for k := range rep.Notes {
			keys = append(keys, k)
		}
		slices.Sort(keys) // a map's order would change from run to run
		for _, k := range keys {
			fmt.Fprintf(bw, "  %s: %d\n", strings.ReplaceAll(k, "_", " "), rep.Notes[k])
			writeMissingParents(bw, rep.MissingParents[k], rep.Notes[k])
			if k == "complete_spans_ending_before_they_begin" {
				writeImpossible(bw, rep)
			}
		}
	}
	return bw.Flush()
}

var distHeader = []string{"count", "min", "mean", "p50", "p99", "max"}

func distCells(d Dist) []string {
	return []string{u64(d.Count), u64(d.Min), f2(d.Mean), u64(d.P50), u64(d.P99), u64(d.Max)}
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// g4 is a rate with 4 significant digits ("1.235e+09").
func g4(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// seconds is a length of simulated time in the unit that suits it.
func seconds(s float64) string {
	switch {
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 3, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'f', 3, 64) + " ms"
	case s >= 1e-6:
		return strconv.FormatFloat(s*1e6, 'f', 3, 64) + " us"
	}
	return strconv.FormatFloat(s*1e9, 'f', 3, 64) + " ns"
}

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func histText(h []Bucket) string {
	parts := make([]string, len(h))
	for i, b := range h {
		if b.Lo == b.Hi {
			parts[i] = fmt.Sprintf("%d:%d", b.Lo, b.Count)
		} else {
			parts[i] = fmt.Sprintf("%d-%d:%d", b.Lo, b.Hi, b.Count)
		}
	}
	return strings.Join(parts, " ")
}

// table is one titled section: a header and rows of cells, each row
// optionally followed by a line outside the columns (a span's histogram).
// Columns whose header starts with '<' are text, left-aligned; the others
// are numbers, right-aligned. The last column is not padded, so lines have
// no trailing blanks.
// tickName is what the report's durations count: "cycles", or the unit
// of a time base of one whole unit ("ps" for chronon.Picoseconds), whose
// ticks are time, not a clock's cycles. A unit with a clock of its own
// (its rate per second is not the file's) keeps "cycles" for all.
func tickName(rep *Report) string {
	unit, ok := strings.CutPrefix(rep.Window.TimeBase, "1 ")
	if !ok || strings.ContainsAny(unit, " /") || rep.Window.Seconds <= 0 {
		return "cycles"
	}
	for _, u := range rep.Units {
		if file := float64(u.Events) / rep.Window.Seconds; math.Abs(u.PerSecond-file) > 1e-9*file {
			return "cycles"
		}
	}
	return unit
}

type table struct {
	title    string
	left     []bool
	rows     [][]string
	trailers map[int]string // row index -> the line printed after it
}

func newTable(title string, header ...string) *table {
	t := &table{title: title, left: make([]bool, len(header))}
	cells := make([]string, len(header))
	for i, h := range header {
		cells[i], t.left[i] = strings.CutPrefix(h, "<")
	}
	t.rows = append(t.rows, cells)
	return t
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) trailer(line string) {
	if t.trailers == nil {
		t.trailers = map[int]string{}
	}
	t.trailers[len(t.rows)-1] = line
}

// width is what a cell occupies on a terminal: runes, not bytes, so a
// non-ASCII unit name does not shift its row.
func width(s string) int { return utf8.RuneCountInString(s) }

func (t *table) write(w *bufio.Writer) {
	fmt.Fprintf(w, "\n%s\n", t.title)
	t.writeRows(w)
}

// writeRows writes the table without its title.
func (t *table) writeRows(w *bufio.Writer) {
	widths := make([]int, len(t.left))
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], width(c))
		}
	}
	for ri, r := range t.rows {
		for i, c := range r {
			w.WriteString("  ")
			pad := strings.Repeat(" ", widths[i]-width(c))
			switch {
			case !t.left[i]:
				w.WriteString(pad)
				w.WriteString(c)
			case i == len(r)-1:
				w.WriteString(c)
			default:
				w.WriteString(c)
				w.WriteString(pad)
			}
		}
		w.WriteByte('\n')
		if l, ok := t.trailers[ri]; ok {
			w.WriteString("  ")
			w.WriteString(l)
			w.WriteByte('\n')
		}
	}
}

// writeMissingParents lists the parent ids a note counts, under it: each
// with its first child, then how many children the list leaves out.
func writeMissingParents(bw *bufio.Writer, mps []MissingParent, children uint64) {
	listed := uint64(0)
	for _, mp := range mps {
		child := "child"
		if mp.ID != nil {
			child += " id " + u64(*mp.ID)
		}
		child += " on " + esc(mp.Unit) + " at cycle " + u64(mp.Cycle)
		if mp.Children > 1 {
			fmt.Fprintf(bw, "    parent id %d: %d children, the first %s\n", mp.ParentID, mp.Children, child)
		} else {
			fmt.Fprintf(bw, "    parent id %d: %s\n", mp.ParentID, child)
		}
		listed += mp.Children
	}
	if len(mps) > 0 && children > listed {
		fmt.Fprintf(bw, "    ... and %d more children\n", children-listed)
	}
}
