package tracesql

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// cycleRange is an inclusive range of cycles.
type cycleRange struct{ lo, hi uint64 }

// selection is what a scan reads of one trace: the events whose cycle lies
// in one of cycles (sorted, disjoint, not touching; nil: every cycle) and
// whose unit is in units (by id; nil: every unit). It is the intersection
// of the database's options, a table's parameters and the predicates the
// query pushes down (pushdown.go).
type selection struct {
	cycles []cycleRange
	units  []bool
}

// everything is the selection of no restriction.
var everything = selection{}

// empty reports whether the selection holds no event at all.
func (s *selection) empty() bool {
	if s.cycles != nil && len(s.cycles) == 0 {
		return true
	}
	return s.units != nil && !slices.Contains(s.units, true)
}

// hasCycle reports whether cycle c is selected.
func (s *selection) hasCycle(c uint64) bool {
	if s.cycles == nil {
		return true
	}
	if len(s.cycles) <= 2 { // the common cases: a window, a point
		for _, r := range s.cycles {
			if c >= r.lo && c <= r.hi {
				return true
			}
		}
		return false
	}
	i, _ := slices.BinarySearchFunc(s.cycles, c, func(r cycleRange, c uint64) int {
		if r.hi < c {
			return -1
		}
		if r.lo > c {
			return 1
		}
		return 0
	})
	return i < len(s.cycles) && s.cycles[i].lo <= c && c <= s.cycles[i].hi
}

// hasUnit reports whether unit u is selected.
func (s *selection) hasUnit(u uint16) bool {
	return s.units == nil || int(u) < len(s.units) && s.units[u]
}

// coversCycles reports whether every cycle of lo..hi is selected.
func (s *selection) coversCycles(lo, hi uint64) bool {
	if s.cycles == nil {
		return true
	}
	for _, r := range s.cycles {
		if r.lo <= lo && hi <= r.hi {
			return true
		}
	}
	return false
}

// coversUnits reports whether every unit of ids is selected; a block that
// records no unit set (nil) is covered only when every unit is selected.
func (s *selection) coversUnits(ids []uint16) bool {
	if s.units == nil {
		return true
	}
	if ids == nil {
		return false
	}
	for _, u := range ids {
		if !s.hasUnit(u) {
			return false
		}
	}
	return true
}

// unitIDs lists the selected units (nil: every unit).
func (s *selection) unitIDs() []uint16 {
	if s.units == nil {
		return nil
	}
	ids := []uint16{}
	for id, ok := range s.units {
		if ok {
			ids = append(ids, uint16(id))
		}
	}
	return ids
}

// withCycles narrows s to the cycles of rs (any order, may overlap).
func (s selection) withCycles(rs []cycleRange) selection {
	rs = normalize(rs)
	if s.cycles == nil {
		s.cycles = rs
		return s
	}
	var out []cycleRange
	for _, a := range s.cycles {
		for _, b := range rs {
			if lo, hi := max(a.lo, b.lo), min(a.hi, b.hi); lo <= hi {
				out = append(out, cycleRange{lo, hi})
			}
		}
	}
	s.cycles = normalize(out)
	if s.cycles == nil {
		s.cycles = []cycleRange{}
	}
	return s
}

// withUnits narrows s to the units ids.
func (s selection) withUnits(ids []uint16) selection {
	units := make([]bool, 1<<16)
	for _, id := range ids {
		if s.hasUnit(id) {
			units[id] = true
		}
	}
	s.units = units
	return s
}

// normalize sorts rs and merges the ranges that overlap or touch; it
// returns a non-nil slice (an empty one selects nothing).
func normalize(rs []cycleRange) []cycleRange {
	out := make([]cycleRange, 0, len(rs))
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b cycleRange) int { return cmp.Compare(a.lo, b.lo) })
	for _, r := range rs {
		if r.lo > r.hi {
			continue
		}
		if n := len(out); n > 0 && (r.lo <= out[n-1].hi || out[n-1].hi != math.MaxUint64 && r.lo == out[n-1].hi+1) {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// hull is the smallest range holding every selected cycle.
func (s *selection) hull() cycleRange {
	if s.cycles == nil {
		return cycleRange{0, math.MaxUint64}
	}
	if len(s.cycles) == 0 {
		return cycleRange{1, 0}
	}
	return cycleRange{s.cycles[0].lo, s.cycles[len(s.cycles)-1].hi}
}

// A pushed-down selection travels from the query rewrite (pushdown.go) to
// the table function as a text parameter: fields separated by ';',
// "c=LO-HI,LO-HI" for the cycle ranges, "u<trace>=ID,LO-HI" for the units of
// trace number <trace> (absent: every unit of that trace).

// pushSpec is a selection pushed down from a query: per trace units (nil
// entry: every unit) and cycles for all.
type pushSpec struct {
	cycles []cycleRange // nil: every cycle
	units  [][]uint16   // by trace; nil entry: every unit
}

func (p *pushSpec) String() string {
	var fields []string
	if p.cycles != nil {
		var b strings.Builder
		b.WriteString("c=")
		for i, r := range p.cycles {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d-%d", r.lo, r.hi)
		}
		fields = append(fields, b.String())
	}
	for ti, ids := range p.units {
		if ids == nil {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "u%d=", ti)
		ids = slices.Clone(ids)
		slices.Sort(ids)
		for i := 0; i < len(ids); {
			j := i
			for j+1 < len(ids) && ids[j+1] <= ids[j]+1 {
				j++
			}
			if i > 0 {
				b.WriteByte(',')
			}
			if j > i {
				fmt.Fprintf(&b, "%d-%d", ids[i], ids[j])
			} else {
				fmt.Fprintf(&b, "%d", ids[i])
			}
			i = j + 1
		}
		fields = append(fields, b.String())
	}
	return strings.Join(fields, ";")
}

// parsePushSpec parses what String wrote, for a database of traces traces.
func parsePushSpec(s string, traces int) (*pushSpec, error) {
	p := &pushSpec{units: make([][]uint16, traces)}
	bad := func() (*pushSpec, error) { return nil, fmt.Errorf("tracesql: malformed pushed-down selection %q", s) }
	for _, f := range strings.Split(s, ";") {
		if f == "" {
			continue
		}
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return bad()
		}
		ranges, err := parseRanges(val)
		if err != nil {
			return bad()
		}
		switch {
		case key == "c":
			p.cycles = []cycleRange{}
			for _, r := range ranges {
				p.cycles = append(p.cycles, cycleRange{r[0], r[1]})
			}
		case strings.HasPrefix(key, "u"):
			ti, err := strconv.Atoi(key[1:])
			if err != nil || ti < 0 || ti >= traces {
				return bad()
			}
			ids := []uint16{}
			for _, r := range ranges {
				if r[1] > math.MaxUint16 || r[1]-r[0] > math.MaxUint16 {
					return bad()
				}
				for id := r[0]; id <= r[1]; id++ {
					ids = append(ids, uint16(id))
				}
			}
			p.units[ti] = ids
		default:
			return bad()
		}
	}
	return p, nil
}

func parseRanges(s string) ([][2]uint64, error) {
	var out [][2]uint64
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, err
		}
		hi := lo
		if isRange {
			if hi, err = strconv.ParseUint(b, 10, 64); err != nil {
				return nil, err
			}
		}
		if lo > hi {
			return nil, fmt.Errorf("range %d-%d", lo, hi)
		}
		out = append(out, [2]uint64{lo, hi})
	}
	return out, nil
}
