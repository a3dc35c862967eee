package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
)

// diffReport is what diff --json prints. Its units are written as they are
// found, one array element at a time (a report of many diverged units is
// never held whole), and the counts after them.
type diffReport struct {
	A             string     `json:"a" doc:"The first file"`
	B             string     `json:"b" doc:"The second file"`
	Units         []diffUnit `json:"units" doc:"The units that differ or are in one run only, by name"`
	UnitsCompared int        `json:"units_compared" doc:"Units in both runs (selected by --unit)"`
	UnitsDiffer   int        `json:"units_differ" doc:"Of those, the units that differ"`
	OnlyInA       int        `json:"only_in_a" doc:"Units in a only"`
	OnlyInB       int        `json:"only_in_b" doc:"Units in b only"`
	Equal         bool       `json:"equal" doc:"No unit differs and none is in one run only (exit status 0)"`
}

type diffUnit struct {
	Unit    string       `json:"unit" doc:"Its name"`
	Status  string       `json:"status" doc:"differs, only_in_a or only_in_b"`
	Event   uint64       `json:"event,omitempty" doc:"differs: the number of its first differing event, counted from 1 within the unit"`
	A       *diffSide    `json:"a" doc:"The unit in a (null when only in b)"`
	B       *diffSide    `json:"b" doc:"The unit in b (null when only in a)"`
	Formats []diffFormat `json:"formats,omitempty" doc:"differs: its events per format in each run"`
}

type diffSide struct {
	Events  uint64     `json:"events" doc:"Its events in this run (within --cycles)"`
	Cycle   *uint64    `json:"cycle,omitempty" doc:"differs: the cycle of its event number event in this run; absent when the run has no such event (it has events events)"`
	Context []diffLine `json:"context,omitempty" doc:"differs: its events around the first difference, as dump prints them"`
}

type diffLine struct {
	Event uint64 `json:"event" doc:"The event's number within the unit, from 1"`
	Line  string `json:"line" doc:"The event as dump prints it (without the newline)"`
}

type diffFormat struct {
	Format string `json:"format" doc:"The format string"`
	A      uint64 `json:"a" doc:"Events of it in a"`
	B      uint64 `json:"b" doc:"Events of it in b"`
}

// diffJSON writes diffReport as the units come.
type diffJSON struct {
	w     *bufio.Writer
	files []string
	n     int // units written
}

func (j *diffJSON) begin() {
	fmt.Fprintf(j.w, "{\n  \"a\": %s,\n  \"b\": %s,\n  \"units\": [", jsonString(j.files[0]), jsonString(j.files[1]))
}

func (j *diffJSON) unit(u diffUnit) {
	b, _ := json.MarshalIndent(u, "    ", "  ") // of strings and numbers: cannot fail
	if j.n > 0 {
		j.w.WriteString(",")
	}
	j.n++
	fmt.Fprintf(j.w, "\n    %s", b)
}

func (j *diffJSON) only(s int, u *dunit) {
	side := &diffSide{Events: u.events[s]}
	du := diffUnit{Unit: u.name, Status: "only_in_a", A: side}
	if s == 1 {
		du.Status, du.A, du.B = "only_in_b", nil, side
	}
	j.unit(du)
}

func (j *diffJSON) differs(u *dunit, vs [2]*unitView) {
	k := min(vs[0].k, vs[1].k)
	du := diffUnit{Unit: u.name, Status: "differs", Event: k + 1}
	for s, v := range vs {
		side := &diffSide{Events: u.events[s], Context: []diffLine{}}
		if v.has {
			side.Cycle = &v.cycle
		}
		for i, l := range v.lines {
			side.Context = append(side.Context, diffLine{Event: v.first + uint64(i) + 1, Line: strings.TrimSuffix(l, "\n")})
		}
		if s == 0 {
			du.A = side
		} else {
			du.B = side
		}
	}
	for _, n := range formatNames(vs) {
		du.Formats = append(du.Formats, diffFormat{Format: n, A: vs[0].counts[n], B: vs[1].counts[n]})
	}
	j.unit(du)
}

func (j *diffJSON) end(s diffSummary) {
	if j.n > 0 {
		j.w.WriteString("\n  ")
	}
	fmt.Fprintf(j.w, "],\n  \"units_compared\": %d,\n  \"units_differ\": %d,\n  \"only_in_a\": %d,\n  \"only_in_b\": %d,\n  \"equal\": %t\n}\n",
		s.compared, s.differ, s.onlyA, s.onlyB, s.differ+s.onlyA+s.onlyB == 0)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
