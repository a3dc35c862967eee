package chronon

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/internal/cyclenum"
	"github.com/chronon-sim/chronon-go/internal/unitsel"
)

// SelectEnv is the environment variable Create reads for a record-time
// selection when no WithSelect option is given (gem5's --debug-flags,
// --debug-start and --debug-end, without recompiling):
//
//	CHRONON_TRACE='units=core1.*,core0.l2;categories=fetch,mem;cycles=5000000-6000000'
const SelectEnv = "CHRONON_TRACE"

// MetadataSelect is the metadata key under which a trace records the
// selection it was written with (absent: everything was recorded).
const MetadataSelect = "chronon.select"

// selection is a parsed record-time selection. The zero value selects
// everything.
type selection struct {
	text      string   // normalized, as recorded in the metadata
	units     []string // unitsel patterns; nil: every unit
	catNames  []string // nil: every category
	catMask   uint64   // OR of catNames' masks, resolved at Create
	hasWindow bool
	lo, hi    uint64 // inclusive cycle window
}

// parseSelect parses the selection grammar: parts separated by ';', each
// key=value with key units, categories or cycles, each key at most once.
// Unit patterns are internal/unitsel's, trace_reader --unit's syntax: path.Match
// ('*', '?', '[...]'; '.' is an ordinary character) on the whole name, the
// name as written, or =NAME for exactly NAME; comma-separated; a backslash
// escapes the next character (a ',' or ';' in a name too). Categories are names given to
// RegisterCategory or NameCategory, or "default" for CategoryDefault.
// Cycles are A-B (inclusive), A- or A (both from A on, as --cycles). An empty
// string selects everything.
func parseSelect(s string) (selection, error) {
	var sel selection
	if strings.TrimSpace(s) == "" {
		return sel, nil
	}
	seen := map[string]bool{}
	var norm []string
	for _, part := range unitsel.Split(s, ';') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue // a trailing ';' is harmless
		}
		key, val, ok := strings.Cut(part, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return sel, fmt.Errorf("%q is not key=value (keys: units, categories, cycles)", part)
		}
		if seen[key] {
			return sel, fmt.Errorf("%q is given twice", key)
		}
		seen[key] = true
		list, err := splitList(key, val)
		if err != nil {
			return sel, err
		}
		switch key {
		case "units":
			for _, p := range list {
				if err := unitsel.Check(p); err != nil {
					return sel, fmt.Errorf("units: bad pattern %q: %w", p, err)
				}
			}
			sel.units = list
			norm = append(norm, "units="+strings.Join(list, ","))
		case "categories":
			sel.catNames = list
			norm = append(norm, "categories="+strings.Join(list, ","))
		case "cycles":
			if len(list) != 1 {
				return sel, fmt.Errorf("cycles: %q is not one window A-B", val)
			}
			lo, hi, err := parseWindow(val)
			if err != nil {
				return sel, err
			}
			sel.hasWindow, sel.lo, sel.hi = true, lo, hi
			norm = append(norm, fmt.Sprintf("cycles=%d-%d", lo, hi))
		default:
			return sel, fmt.Errorf("unknown key %q (keys: units, categories, cycles)", key)
		}
	}
	if len(norm) == 0 {
		return sel, errors.New("no key=value part")
	}
	sel.text = strings.Join(norm, ";")
	return sel, nil
}

func splitList(key, val string) ([]string, error) {
	if val == "" {
		return nil, fmt.Errorf("%s: empty value", key)
	}
	var out []string
	for _, item := range unitsel.Split(val, ',') {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%s: empty item in %q", key, val)
		}
		out = append(out, item)
	}
	return out, nil
}

// parseWindow parses A-B, A- or A (decimal or 0x hex); A alone is "from A
// on", as cyclenum.Range (trace_reader's --cycles) reads it. The numbers
// are cyclenum's; the messages say which one is wrong.
func parseWindow(val string) (lo, hi uint64, err error) {
	a, b, dash := strings.Cut(val, "-")
	if lo, err = cyclenum.Parse(a); err != nil {
		return 0, 0, fmt.Errorf("cycles: %q: first cycle %q is not a number", val, a)
	}
	hi = math.MaxUint64
	if dash {
		if b = strings.TrimSpace(b); b != "" {
			if hi, err = cyclenum.Parse(b); err != nil {
				return 0, 0, fmt.Errorf("cycles: %q: last cycle %q is not a number", val, b)
			}
		}
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("cycles: %q ends before it starts", val)
	}
	return lo, hi, nil
}

// resolve turns category names into a mask. Categories are registered
// globally, normally at package init, so every name must be known when the
// tracer is created: a name registered later would otherwise leave its
// category silently unrecorded.
func (s *selection) resolve() error {
	if s.catNames == nil {
		return nil
	}
	cats := categoriesSnapshot()
	for _, name := range s.catNames {
		if name == "default" {
			s.catMask |= CategoryDefault
			continue
		}
		var m uint64
		for _, c := range cats {
			if c.Name == name {
				m |= c.Mask
			}
		}
		if m == 0 {
			known := []string{"default"}
			for _, c := range cats {
				known = append(known, c.Name)
			}
			sort.Strings(known[1:])
			return fmt.Errorf("categories: %q is not a registered category (registered: %s)", name, strings.Join(known, ", "))
		}
		s.catMask |= m
	}
	return nil
}

// unitMask returns the mask a unit named name starts with, given the mask
// it asked for: 0 when its name matches no unit pattern, else the asked
// mask narrowed to the selected categories.
func (s *selection) unitMask(name string, asked uint64) uint64 {
	if s.units != nil && !unitsel.Any(s.units, name) { // trace_reader's --unit and info match the same way
		return 0
	}
	if s.catNames != nil {
		asked &= s.catMask
	}
	return asked
}

// window returns the unit's window fields: the emit path records an event
// when cycle-lo <= span, one subtraction and one compare, which the full
// range (lo 0, span MaxUint64) always passes.
func (s *selection) window() (lo, span uint64) {
	if !s.hasWindow {
		return 0, math.MaxUint64
	}
	return s.lo, s.hi - s.lo
}

// WithSelect records only the units, categories and cycle window that sel
// names, in CHRONON_TRACE's syntax (SelectEnv). It replaces CHRONON_TRACE:
// the environment is read only when no WithSelect is given, so
// WithSelect("") records everything whatever the environment says.
// Unselected units exist in the schema with no events; SetMask and Enable
// may still turn a unit's categories on later (the window stays).
func WithSelect(sel string) Option {
	return func(c *config) error {
		s, err := parseSelect(sel)
		if err != nil {
			return fmt.Errorf("WithSelect(%q): %w", sel, err)
		}
		c.sel, c.hasSel, c.selSrc = s, true, "WithSelect("+strconv.Quote(sel)+")"
		return nil
	}
}

// applySelect reads CHRONON_TRACE when no WithSelect was given and
// resolves the category names; errors name where the selection came from.
func (c *config) applySelect(getenv func(string) string) error {
	if !c.hasSel {
		v := getenv(SelectEnv)
		s, err := parseSelect(v)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", SelectEnv, v, err)
		}
		c.sel, c.hasSel, c.selSrc = s, true, SelectEnv+"="+strconv.Quote(v)
	}
	if err := c.sel.resolve(); err != nil {
		return fmt.Errorf("%s: %w", c.selSrc, err)
	}
	return nil
}
