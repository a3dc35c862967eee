package analysis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// esc escapes control characters in names and format strings from the file
// (a forged line, a terminal escape sequence, a tab that breaks the
// columns), as every text output of the reader does: mmapio.EscapeText.
func esc(s string) string { return mmapio.EscapeText(s) }

// WriteJSON writes the report as indented JSON, for scripts.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the report as aligned tables for people.
func WriteText(w io.Writer, rep *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Window: cycles %d - %d (%d cycles), %d events\n", rep.Window.Start, rep.Window.End, rep.Window.Cycles, rep.Events)

	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	section := func(title, header string) {
		tw.Flush()
		fmt.Fprintf(bw, "\n%s\n", title)
		fmt.Fprintln(tw, header)
	}
	section("Units", "unit\tevents\tfirst cycle\tlast cycle\tper 1k cycles\t")
	for _, u := range rep.Units {
		name := esc(u.Name)
		if name == "" {
			name = fmt.Sprintf("[%d]", u.ID)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t\n", name, u.Events, u.First, u.Last, u.PerKCycles)
	}
	section("Formats", "id\tkind\tevents\tfirst cycle\tlast cycle\tper 1k cycles\t  format")
	for _, f := range rep.Formats {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%.2f\t  %s\n", f.ID, f.Kind, f.Events, f.First, f.Last, f.PerKCycles, esc(f.Format))
	}
	if len(rep.Spans) > 0 {
		section("Spans (duration in cycles)", "unit\tspan\tcount\tmin\tmean\tp50\tp99\tmax\t")
		for _, s := range rep.Spans {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", esc(s.Unit), esc(s.Span), distCells(s.Dist))
			fmt.Fprintf(tw, "    histogram  %s\n", histText(s.Histogram)) // no tab: outside the columns
		}
	}
	if len(rep.Occupancy) > 0 {
		section("Occupancy (cycles with a span open / window)", "unit\tlane\tbusy cycles\toccupancy\t")
		for _, o := range rep.Occupancy {
			lane := "all"
			if o.Lane != "" {
				lane = esc(o.Lane)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f%%\t\n", esc(o.Unit), lane, o.Busy, 100*o.Occupancy)
		}
	}
	if len(rep.Stages) > 0 {
		section("Stages (cycles from one unit to the next along flows)", "from\tto\tcount\tmin\tmean\tp50\tp99\tmax\t")
		for _, s := range rep.Stages {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", esc(s.From), esc(s.To), distCells(s.Dist))
		}
	}
	tw.Flush()
	if len(rep.Notes) > 0 {
		fmt.Fprintln(bw, "\nNotes")
		for k, v := range rep.Notes {
			fmt.Fprintf(bw, "  %s: %d\n", strings.ReplaceAll(k, "_", " "), v)
		}
	}
	return bw.Flush()
}

func distCells(d Dist) string {
	return fmt.Sprintf("%d\t%d\t%.2f\t%d\t%d\t%d\t", d.Count, d.Min, d.Mean, d.P50, d.P99, d.Max)
}

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
