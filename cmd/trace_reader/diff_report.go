package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// unitView is what the report shows of a differing unit in one run: the
// index of its first differing event (its count when the run has none
// there), the lines around it and its counts per format.
type unitView struct {
	k      uint64   // index of the event holding the first differing byte
	has    bool     // the run has an event at k
	cycle  uint64   // its cycle
	first  uint64   // index of lines[0]
	lines  []string // context lines, rendered as dump prints them
	counts map[string]uint64
}

// viewer is one unit's view being built while its run's events go by.
type viewer struct {
	u     *dunit
	v     *unitView
	off   uint64   // bytes of its events so far (normalized sizes)
	i     uint64   // its events so far
	found bool     // the event holding byte u.at was met
	ring  []string // the context lines before the current event
	after uint64   // context lines still to take after the difference
}

// views walks run s's events once and builds the view of every unit in
// us (the diverged ones): the event holding byte at of each one's
// normalized stream, the lines around it, its counts per format. One
// pass for all of them, not a query per unit: with tens of thousands of
// diverged units a query each re-planned over every block (quadratic: a
// 32,768-unit diff took minutes). A unit's events come in the order a
// query of its ids alone yields them.
func (d *differ) views(s int, us []*dunit) ([]*unitView, error) {
	sd := d.side[s]
	r := sd.r
	out := make([]*unitView, len(us))
	byID := map[uint16]*viewer{}
	var ids []uint16
	for k, u := range us {
		out[k] = &unitView{counts: map[string]uint64{}}
		vw := &viewer{u: u, v: out[k]}
		for _, id := range u.ids[s] {
			byID[id] = vw
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		q := mmapio.Query{}.WithUnits(ids...)
		if d.c.hasCycles {
			q = q.WithCycles(d.c.start, d.c.end)
		}
		ctx := uint64(d.c.context)
		for ev := range r.Events(q) {
			vw := byID[ev.UnitID]
			if vw == nil {
				continue
			}
			v, u := vw.v, vw.u
			v.counts[fmtName(&ev)]++
			size := uint64(schema.EventHeaderSize + len(ev.RawArgs()))
			switch {
			case !vw.found && vw.off+size > u.at:
				vw.found, v.k, v.has, v.cycle = true, vw.i, true, ev.Cycle
				v.first = vw.i - uint64(len(vw.ring))
				v.lines = append(vw.ring, string(tracetext.AppendLine(nil, r, &ev)))
				vw.ring = nil
				vw.after = ctx
			case !vw.found:
				if ctx > 0 {
					if uint64(len(vw.ring)) == ctx {
						copy(vw.ring, vw.ring[1:])
						vw.ring = vw.ring[:ctx-1]
					}
					vw.ring = append(vw.ring, string(tracetext.AppendLine(nil, r, &ev)))
				}
			case vw.after > 0:
				v.lines = append(v.lines, string(tracetext.AppendLine(nil, r, &ev)))
				vw.after--
			}
			vw.off += size
			vw.i++
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	for _, vw := range byID {
		if !vw.found { // the run ends before the difference: its missing event is the k-th
			v := vw.v
			v.k, v.first, v.lines = vw.i, vw.i-uint64(len(vw.ring)), vw.ring
			vw.found = true // a unit of several ids is in byID once per id
		}
	}
	return out, nil
}

// fmtName names an event's format in the counts: its text, or the id of
// a format the schema does not have.
func fmtName(ev *mmapio.Event) string {
	if f := ev.Format(); f != nil {
		return tracetext.EscapeText(f.Format.Format)
	}
	return fmt.Sprintf("[unknown format %d]", ev.FormatID)
}

// reportBatch is how many diverged units' views one pass over the runs
// builds: passes stay few (one for up to 4,096 units) while the lines
// held stay bounded (2 x (2 x --context + 1) lines per unit).
const reportBatch = 4096

// report prints the units that differ and returns whether any does.
func (d *differ) report(out io.Writer) (bool, error) {
	w := bufio.NewWriter(out)
	var sink diffSink = &diffText{w: w, files: d.c.files}
	if d.c.json {
		sink = &diffJSON{w: w, files: d.c.files}
	}
	sink.begin()
	units := slices.Clone(d.units)
	slices.SortFunc(units, func(x, y *dunit) int { return strings.Compare(x.name, y.name) })
	var diverged []*dunit
	for _, u := range units {
		if u.selected && u.known[0] && u.known[1] && u.diverged {
			diverged = append(diverged, u)
		}
	}
	// The views are built for reportBatch diverged units at a time: one
	// pass over each run per batch, the context lines of a batch held.
	var views [2][]*unitView
	batch := 0 // index in diverged of views[s][0]
	var sum diffSummary
	for _, u := range units {
		if !u.selected {
			continue
		}
		switch {
		case u.known[0] && !u.known[1]:
			sum.onlyA++
			sink.only(0, u)
			continue
		case u.known[1] && !u.known[0]:
			sum.onlyB++
			sink.only(1, u)
			continue
		}
		sum.compared++
		if !u.diverged {
			continue
		}
		if sum.differ == batch+len(views[0]) {
			batch = sum.differ
			for s := range 2 {
				v, err := d.views(s, diverged[batch:min(len(diverged), batch+reportBatch)])
				if err != nil {
					w.Flush()
					return true, err
				}
				views[s] = v
			}
		}
		vs := [2]*unitView{views[0][sum.differ-batch], views[1][sum.differ-batch]}
		sum.differ++
		sink.differs(u, vs)
	}
	sink.end(sum)
	return sum.differ+sum.onlyA+sum.onlyB > 0, w.Flush()
}

// diffSummary counts the units of a report.
type diffSummary struct{ differ, onlyA, onlyB, compared int }

// diffSink writes a report: the text for people, or JSON (diff --json).
type diffSink interface {
	begin()
	only(side int, u *dunit)           // a unit of one run only
	differs(u *dunit, vs [2]*unitView) // a unit that differs: its view in each run
	end(diffSummary)
}

// diffText is the report for people.
type diffText struct {
	w     *bufio.Writer
	files []string
}

func (t *diffText) begin() {}

func (t *diffText) only(s int, u *dunit) {
	fmt.Fprintf(t.w, "only in %s: %s (%d events)\n", t.files[s], esc(u.name), u.events[s])
}

func (t *diffText) differs(u *dunit, vs [2]*unitView) {
	w, a, b := t.w, t.files[0], t.files[1]
	k := min(vs[0].k, vs[1].k)
	// Events are numbered from 1 within the unit (k counts from 0):
	// "event 3745" is the unit's 3745th, as a person counts.
	fmt.Fprintf(w, "unit %s: first difference at event %d", esc(u.name), k+1)
	for s, v := range vs {
		if v.has {
			fmt.Fprintf(w, ", cycle %d in %s", v.cycle, t.files[s])
		} else {
			fmt.Fprintf(w, ", none in %s (it has %d events)", t.files[s], v.k)
		}
	}
	fmt.Fprintf(w, "\n")
	for s, v := range vs {
		fmt.Fprintf(w, "  %s:\n", t.files[s])
		for j, l := range v.lines {
			mark := "   "
			if v.first+uint64(j) == v.k {
				mark = " > "
			}
			fmt.Fprintf(w, "  %s%s", mark, l)
		}
		if !v.has {
			fmt.Fprintf(w, "   > (no event %d)\n", v.k+1)
		}
	}
	fmt.Fprintf(w, "  events per format: %s | %s\n", a, b)
	for _, n := range formatNames(vs) {
		ca, cb := vs[0].counts[n], vs[1].counts[n]
		mark := ""
		if ca != cb {
			mark = "  *"
		}
		fmt.Fprintf(w, "    %12d %12d  %s%s\n", ca, cb, n, mark)
	}
}

func (t *diffText) end(s diffSummary) {
	if s.differ+s.onlyA+s.onlyB > 0 {
		fmt.Fprintf(t.w, "%d of %d units differ; %d only in %s, %d only in %s\n", s.differ, s.compared, s.onlyA, t.files[0], s.onlyB, t.files[1])
	}
}

// formatNames are the formats of either view, sorted.
func formatNames(vs [2]*unitView) []string {
	var names []string
	for n := range vs[0].counts {
		names = append(names, n)
	}
	for n := range vs[1].counts {
		if _, ok := vs[0].counts[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
