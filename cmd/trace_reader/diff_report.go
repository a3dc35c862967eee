package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
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

// view walks unit u's events in run s (the events of its ids, within
// --cycles) and finds the event holding byte at of its normalized stream.
func (d *differ) view(s int, u *dunit) (*unitView, error) {
	r := d.side[s].r
	v := &unitView{counts: map[string]uint64{}}
	if len(u.ids[s]) == 0 {
		return v, nil
	}
	q := mmapio.Query{}.WithUnits(u.ids[s]...)
	if d.c.hasCycles {
		q = q.WithCycles(d.c.start, d.c.end)
	}
	ctx := uint64(d.c.context)
	var off, i uint64
	found := false
	var ring []string // the ctx lines before the current event
	after := uint64(0)
	for ev := range r.Events(q) {
		v.counts[fmtName(&ev)]++
		size := uint64(schema.EventHeaderSize + len(ev.RawArgs()))
		switch {
		case !found && off+size > u.at:
			found, v.k, v.has, v.cycle = true, i, true, ev.Cycle
			v.first = i - uint64(len(ring))
			v.lines = append(ring, string(r.AppendLine(nil, &ev)))
			after = ctx
		case !found:
			ring = append(ring, string(r.AppendLine(nil, &ev)))
			if uint64(len(ring)) > ctx {
				ring = ring[1:]
			}
		case after > 0:
			v.lines = append(v.lines, string(r.AppendLine(nil, &ev)))
			after--
		}
		off += size
		i++
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if !found { // the run ends before the difference: its missing event is the k-th
		v.k, v.first, v.lines = i, i-uint64(len(ring)), ring
	}
	return v, nil
}

// fmtName names an event's format in the counts: its text, or the id of
// a format the schema does not have.
func fmtName(ev *mmapio.Event) string {
	if f := ev.Format(); f != nil {
		return mmapio.EscapeText(f.Format.Format)
	}
	return fmt.Sprintf("[unknown format %d]", ev.FormatID)
}

// report prints the units that differ and returns whether any does.
func (d *differ) report(out io.Writer) (bool, error) {
	w := bufio.NewWriter(out)
	a, b := d.c.files[0], d.c.files[1]
	units := slices.Clone(d.units)
	slices.SortFunc(units, func(x, y *dunit) int { return strings.Compare(x.name, y.name) })
	var differ, onlyA, onlyB, compared int
	for _, u := range units {
		if !u.selected {
			continue
		}
		switch {
		case u.known[0] && !u.known[1]:
			onlyA++
			fmt.Fprintf(w, "only in %s: %s (%d events)\n", a, esc(u.name), u.events[0])
			continue
		case u.known[1] && !u.known[0]:
			onlyB++
			fmt.Fprintf(w, "only in %s: %s (%d events)\n", b, esc(u.name), u.events[1])
			continue
		}
		compared++
		if !u.diverged {
			continue
		}
		differ++
		var vs [2]*unitView
		for s := range 2 {
			v, err := d.view(s, u)
			if err != nil {
				w.Flush()
				return true, err
			}
			vs[s] = v
		}
		k := min(vs[0].k, vs[1].k)
		// Events are numbered from 1 within the unit (k counts from 0):
		// "event 3745" is the unit's 3745th, as a person counts.
		fmt.Fprintf(w, "unit %s: first difference at event %d", esc(u.name), k+1)
		for s, v := range vs {
			if v.has {
				fmt.Fprintf(w, ", cycle %d in %s", v.cycle, d.c.files[s])
			} else {
				fmt.Fprintf(w, ", none in %s (it has %d events)", d.c.files[s], v.k)
			}
		}
		fmt.Fprintf(w, "\n")
		for s, v := range vs {
			fmt.Fprintf(w, "  %s:\n", d.c.files[s])
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
		for _, n := range names {
			ca, cb := vs[0].counts[n], vs[1].counts[n]
			mark := ""
			if ca != cb {
				mark = "  *"
			}
			fmt.Fprintf(w, "    %12d %12d  %s%s\n", ca, cb, n, mark)
		}
	}
	if differ+onlyA+onlyB > 0 {
		fmt.Fprintf(w, "%d of %d units differ; %d only in %s, %d only in %s\n", differ, compared, onlyA, a, onlyB, b)
	}
	return differ+onlyA+onlyB > 0, w.Flush()
}
