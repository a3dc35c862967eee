package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/chronon-sim/chronon-go/analysis"
	"github.com/chronon-sim/chronon-go/internal/cli"
)

// The JSON reports' reference (docs/cli.md) is made from the report types
// themselves: every field, as encoding/json names it, its JSON type and
// its doc tag (analysis' types, which have none, from analysisDocs). A
// field without a description fails the generation, so a field added to a
// report is documented or the docs test fails.

// jsonReports are the reports --json prints, in the reference's order.
var jsonReports = []struct {
	commands string
	v        any
	intro    string
}{
	{"info --json", infoReport{}, "One object; its files array has one element per file (one file too)."},
	{"stats --json", analysis.Report{}, "One object for the timeline of all the files given."},
	{"diff --json", diffReport{}, "One object; the exit status is diff's (0 equal, 1 different, 2 error)."},
	{"merge --json", mergeReport{}, "One object, printed once the output is in place (what merge prints as a line without --json)."},
	{"recover --json", recoverReport{}, "One object, printed once the output is in place (what recover prints as lines without --json)."},
	{"verify --json", verifyReport{}, "One object; the exit status is verify's (0 every file ok, 1 a problem)."},
}

// analysisDocs describes the fields of analysis.Report's types.
var analysisDocs = map[string]string{
	"Report.Window":            "The cycle window rates and occupancies are relative to",
	"Report.Events":            "Events in the window",
	"Report.Units":             "Per unit, by id",
	"Report.Formats":           "Per format, by id",
	"Report.Spans":             "Durations of each span (begin to end, or complete spans) on each unit",
	"Report.Occupancy":         "Per unit and lane: the cycles with a span open",
	"Report.Stages":            "Along flows (a flow id's events in cycle order): cycles from one unit to the next",
	"Report.Notes":             "What the statistics could not use: unmatched_span_ends, spans_open_at_end, parents_begun_after_child (a parent span begun in a later cycle than its child), parents_in_a_cycle_of_ids (spans of one cycle naming each other as parent: one goes without), parents_not_found (no span had the id), events_dropped_by_the_writer_in_the_file, complete_spans_ending_before_they_begin (left out of spans and occupancy: begin + duration past the last cycle, end-start stored with end before start) (absent when none)",
	"Report.MissingParents":    "The parent ids the parents_ notes count, keyed as they are: the first 5 of each reason, in the order their children were read (absent when none)",
	"MissingParent.ParentID":   "The parent id a child recorded",
	"MissingParent.Children":   "The children that named it",
	"MissingParent.Unit":       "The first child's unit",
	"MissingParent.Cycle":      "The first child's cycle",
	"MissingParent.ID":         "The first child's id (an async span's; absent for a span on a lane)",
	"Report.ImpossibleSpans":   "The first 5 complete spans left out because they end before they begin, in the order read (absent when none)",
	"ImpossibleSpan.Unit":      "The unit",
	"ImpossibleSpan.Span":      "The span's name",
	"ImpossibleSpan.Cycle":     "Its begin",
	"ImpossibleSpan.Dur":       "Its duration as recorded, read as signed: end - begin, negative",
	"Window.Start":             "Its first cycle: --cycles' start, else the first event's",
	"Window.End":               "Its last cycle (inclusive)",
	"Window.Cycles":            "Its length in cycles",
	"UnitStats.ID":             "The unit's id",
	"UnitStats.Name":           "The unit's name",
	"UnitStats.Events":         "Its events",
	"UnitStats.First":          "The cycle of its first event",
	"UnitStats.Last":           "The cycle of its last event",
	"UnitStats.PerKCycles":     "Its events per 1000 cycles of the window",
	"FormatStats.ID":           "The format's id",
	"FormatStats.Format":       "The format string",
	"FormatStats.Kind":         "instant, span-begin, span-end, span-complete, counter, flush, async-begin, async-end or retire",
	"FormatStats.Events":       "Its events",
	"FormatStats.First":        "The cycle of its first event",
	"FormatStats.Last":         "The cycle of its last event",
	"FormatStats.PerKCycles":   "Its events per 1000 cycles of the window",
	"SpanStats.Unit":           "The unit",
	"SpanStats.Span":           "The span's name",
	"StageStats.From":          "The unit a flow leaves",
	"StageStats.To":            "The unit it reaches next",
	"Dist.Count":               "Values (spans, or flow steps)",
	"Dist.Min":                 "The least, in cycles",
	"Dist.Mean":                "The mean",
	"Dist.P50":                 "The median",
	"Dist.P99":                 "The 99th percentile",
	"Dist.Max":                 "The greatest",
	"Dist.Histogram":           "Counts in power-of-two buckets (0, 1, 2-3, 4-7, ...), empty ones left out",
	"Bucket.Lo":                "The bucket's least value",
	"Bucket.Hi":                "Its greatest",
	"Bucket.Count":             "Values in it",
	"OccupancyStats.Unit":      "The unit",
	"OccupancyStats.Lane":      "The lane (a span's lane argument), absent for the unit as a whole",
	"OccupancyStats.Busy":      "Cycles of the window with at least one span open",
	"OccupancyStats.Occupancy": "busy_cycles / the window's cycles",
	"Report.Trees":             "Per name of the root span: the trees async spans make with their parent ids (absent when no format has a parent)",
	"Window.TimeBase":          "How long one cycle lasts (\"1 ps\"), when the trace has a time base (absent otherwise)",
	"Window.Seconds":           "The window in seconds of simulated time, with a time base (absent otherwise)",
	"UnitStats.PerSecond":      "Its events per second of simulated time, by its clock (absent without a time base)",
	"FormatStats.PerSecond":    "Its events per second of simulated time (absent without a time base)",
	"TreeStats.Root":           "The root spans' name",
	"TreeStats.Trees":          "Trees: root spans (no parent, or one that named no span) with children",
	"TreeStats.Childless":      "Root spans of this name without children (requests without sub-requests), in none of the distributions",
	"TreeStats.Spans":          "Spans per tree, the root included",
	"TreeStats.FanOut":         "Children per span that has some",
	"TreeStats.Depth":          "Edges from the root to the deepest span, per tree",
	"TreeStats.Latency":        "The root's duration, in cycles",
	"TreeStats.Critical":       "Per unit and span, the cycles of the trees' latency on their critical paths (the chain of spans that decided when each request ended), largest first",
	"TreeStats.Slowest":        "The critical path of the slowest tree, in time order",
	"CriticalStats.Unit":       "The unit",
	"CriticalStats.Span":       "The span's name",
	"CriticalStats.Cycles":     "Cycles on critical paths",
	"CriticalStats.Share":      "Their share of all critical-path cycles of the root name",
	"PathStep.Unit":            "The unit",
	"PathStep.Span":            "The span the path is in",
	"PathStep.Start":           "From this cycle",
	"PathStep.End":             "To this one",
}

// writeJSONReference writes the JSON reports' part of docs/cli.md.
func writeJSONReference(w io.Writer) error {
	fmt.Fprintf(w, "### JSON reports\n\n")
	fmt.Fprintf(w, "`--json` makes info, stats, diff, merge, recover and verify print one JSON object (two-space indented)\n"+
		"instead of text; the fields below are all there is (a field is absent only where it\n"+
		"says so). Counts, ids and cycles are integers, rates numbers, names as the file has them.\n"+
		"`sql --json` prints the query's result: an array of objects, one per row, keyed by\n"+
		"column name.\n\n")
	for _, r := range jsonReports {
		fmt.Fprintf(w, "#### %s\n\n%s\n\n| Field | Type | |\n|---|---|---|\n", r.commands, r.intro)
		var rows [][3]string
		if err := jsonFields(reflect.TypeOf(r.v), "", &rows); err != nil {
			return fmt.Errorf("%s: %w", r.commands, err)
		}
		for _, row := range rows {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", row[0], row[1], cli.EscapeMarkdown(row[2]))
		}
		fmt.Fprintf(w, "\n")
	}
	return nil
}

// jsonFields appends a row per field of struct type t (with nested
// objects' fields after theirs), named as encoding/json names them.
func jsonFields(t reflect.Type, prefix string, rows *[][3]string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" { // embedded: its fields are the object's
			if err := jsonFields(f.Type, prefix, rows); err != nil {
				return err
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		doc := f.Tag.Get("doc")
		if doc == "" {
			doc = analysisDocs[t.Name()+"."+f.Name]
		}
		if doc == "" {
			return fmt.Errorf("field %s.%s has no description (a doc tag, or analysisDocs)", t.Name(), f.Name)
		}
		typ, elem := jsonType(f.Type)
		if strings.Contains(opts, "omitempty") {
			typ = strings.TrimSuffix(typ, " or null") + ", may be absent"
		}
		*rows = append(*rows, [3]string{prefix + name, typ, doc})
		if elem != nil {
			sub := prefix + name + "."
			switch {
			case f.Type.Kind() == reflect.Slice:
				sub = prefix + name + "[]."
			case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Slice:
				sub = prefix + name + ".<key>[]."
			case f.Type.Kind() == reflect.Map:
				sub = prefix + name + ".<key>."
			}
			if err := jsonFields(elem, sub, rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonType names t's JSON type, and returns the struct type whose fields
// it holds (an object, or an array of them), if any.
func jsonType(t reflect.Type) (string, reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer:
		s, elem := jsonType(t.Elem())
		return s + " or null", elem
	case reflect.Struct:
		return "object", t
	case reflect.Slice:
		s, elem := jsonType(t.Elem())
		if elem != nil {
			return "array of objects", elem
		}
		return "array of " + s + "s", nil
	case reflect.Map:
		s, elem := jsonType(t.Elem())
		if elem != nil { // "array of objects" -> "arrays of objects"
			first, rest, _ := strings.Cut(s, " ")
			return "object of " + first + "s " + rest, elem
		}
		return "object of " + s + "s", nil
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer", nil
	}
	return t.Kind().String(), nil
}
