package chronon

import (
	"errors"

	"github.com/chronon-sim/chronon-go/schema"
)

// TimeBase says how long one tick (an event's cycle) lasts: Num/Den
// seconds. Readers convert cycles to time with it: the exporters' timelines
// are in real time, stats gives rates per second, and SQL has a time
// column. Without one a file has cycles only.
type TimeBase = schema.TimeBase

// Common time bases: a simulator whose clock is in picoseconds (Akita,
// gem5, ChampSim's clock) records Picoseconds; one counting the cycles of
// one clock records Hz of its frequency.
var (
	Picoseconds = schema.Picoseconds
	Nanoseconds = schema.Nanoseconds
)

// Hz is the time base of a clock of freq cycles per second: one tick is
// one cycle (Hz(3_000_000_000) for 3 GHz).
func Hz(freq uint64) TimeBase { return schema.Hz(freq) }

// WithTimeBase records how long one tick lasts for every unit of the file
// (units may have their own: Unit.SetTimeBase).
func WithTimeBase(tb TimeBase) Option {
	return func(c *config) error {
		if tb.IsZero() {
			return errors.New("time base with a zero numerator or denominator")
		}
		c.timeBase = tb
		return nil
	}
}

// SetTimeBase gives the unit a clock of its own (a clock domain): its
// events' cycles are ticks of tb, which readers convert to time with it
// instead of the file's time base. Readers still order the events of all
// units by their cycle numbers, so units on different clocks interleave by
// number: a simulator with several clocks usually records one timeline
// (picoseconds) everywhere and needs no unit time base. The schema records
// it before the next block. Safe from any goroutine.
func (u *Unit) SetTimeBase(tb TimeBase) error {
	if tb.IsZero() {
		return errors.New("chronon: time base with a zero numerator or denominator")
	}
	t := u.t
	t.timeMu.Lock()
	if t.unitTimes == nil {
		t.unitTimes = map[uint16]schema.TimeBase{}
	}
	t.unitTimes[u.id] = tb
	t.timeMu.Unlock()
	t.gen.Add(1)
	return nil
}
