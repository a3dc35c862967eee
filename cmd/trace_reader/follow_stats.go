package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// followPoll is how often follow looks for new blocks.
const followPoll = 100 * time.Millisecond

// unitRate is what stats --follow keeps per unit.
type unitRate struct {
	name              string
	events, prevEv    uint64
	lastCycle, prevCy uint64
	firstCycle        uint64 // the least cycle read, for the whole run's cycles/s
}

// followStats is stats --follow: it reads the file as it grows and every
// period prints, per unit, the events so far, events per second, the last
// cycle and cycles per second over the period; on a terminal it redraws the
// table in place, otherwise it prints one table per period. It ends with
// the table of the whole file when the writer closes it, its rates the
// whole run's: what was read since follow started over the wall time since
// then (a file already complete then has counts only: '-' for rates).
func followStats(ctx context.Context, c *config, w io.Writer, period time.Duration) error {
	if c.json || c.output != "" {
		return usagef("--follow prints tables to standard output: not with --json or -o")
	}
	fl, err := openFollower(c.file)
	if err != nil {
		return err
	}
	defer fl.Close()
	fl.warn = c.warn
	wasClosed, err := fl.complete()
	if err != nil {
		return err
	}
	redraw := false
	if f, ok := w.(*os.File); ok {
		redraw = isTerminal(f)
	}
	rates := map[uint16]*unitRate{}
	start := time.Now()
	last := start
	show := func(final bool) error {
		now := time.Now()
		dt := now.Sub(last).Seconds()
		last = now
		var b strings.Builder
		if redraw {
			b.WriteString("\x1b[H\x1b[2J")
		}
		switch {
		case final && wasClosed:
			dt = -1 // no rates: the writer was done before we looked
		case final:
			for _, u := range rates { // the whole run: from nothing, since start
				u.prevEv, u.prevCy = 0, u.firstCycle
			}
			dt = now.Sub(start).Seconds()
		}
		state := "writing"
		switch {
		case final:
			state = "closed"
		case wasClosed:
			state = "reading" // a complete file, not yet all read
		}
		writeRates(&b, rates, now.Sub(start), dt, state)
		_, err := io.WriteString(w, b.String())
		return err
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 1)
	batches := make(chan *mmapio.Reader)
	matched := false // a batch had a unit --unit matches
	go func() {
		errc <- fl.run(fctx, followPoll, func(r *mmapio.Reader) error {
			select {
			case batches <- r:
				select { // the batch is counted before run closes it
				case <-batches:
				case <-fctx.Done():
				}
				return nil
			case <-fctx.Done():
				return nil
			}
		})
	}()
	for {
		select {
		case r := <-batches:
			matched = countBatch(c, r, rates) || matched
			batches <- nil
		case <-tick.C:
			if err := show(false); err != nil {
				return err
			}
		case err := <-errc:
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			if !matched {
				if err := fl.noUnit(c); err != nil {
					return err
				}
			}
			return show(true)
		}
	}
}

// countBatch adds the events of a batch that pass the filters, and says
// whether the batch has a unit --unit matches.
func countBatch(c *config, r *mmapio.Reader, rates map[uint16]*unitRate) bool {
	q, ok := followQuery(c, r)
	if !ok {
		return false
	}
	for ev := range r.Events(q) {
		u := rates[ev.UnitID]
		if u == nil {
			u = &unitRate{}
			rates[ev.UnitID] = u
		}
		u.name = r.UnitName(ev.UnitID)
		if u.events == 0 || ev.Cycle < u.firstCycle {
			u.firstCycle = ev.Cycle
		}
		u.events++
		u.lastCycle = max(u.lastCycle, ev.Cycle)
	}
	return true
}

func writeRates(b *strings.Builder, rates map[uint16]*unitRate, elapsed time.Duration, dt float64, state string) {
	ids := make([]uint16, 0, len(rates))
	var total, prev uint64
	for id, u := range rates {
		ids = append(ids, id)
		total += u.events
		prev += u.prevEv
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	fmt.Fprintf(b, "%s  %.1fs  %d events  %s events/s\n", state, elapsed.Seconds(), total, rate(total-prev, dt))
	fmt.Fprintf(b, "%-24s %14s %14s %16s %14s\n", "unit", "events", "events/s", "last cycle", "cycles/s")
	for _, id := range ids {
		u := rates[id]
		name := u.name
		if name == "" {
			name = fmt.Sprintf("#%d", id)
		}
		fmt.Fprintf(b, "%-24s %14d %14s %16d %14s\n", tracetext.EscapeText(name), u.events, rate(u.events-u.prevEv, dt),
			u.lastCycle, rate(u.lastCycle-u.prevCy, dt))
		u.prevEv, u.prevCy = u.events, u.lastCycle
	}
	b.WriteString("\n")
}

// rate is n per second over dt seconds; "-" when dt < 0 (no rate: the
// file was complete before follow started).
func rate(n uint64, dt float64) string {
	switch {
	case dt < 0:
		return "-"
	case dt == 0:
		return "0"
	}
	return fmt.Sprintf("%.0f", float64(n)/dt)
}
