package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// categoryRun is a W1 run whose simulator registered "stall" and "exec"
// in the order given: the first registered takes bit 1, the second bit 2.
// fetch events are in exec, decode events in stall, so the same run
// registered in the other order has the same dump and other bits.
func categoryRun(first, second string, n, units int, seed uint64) (*schema.Schema, []ctracetest.Event) {
	s := ctracetest.W1Schema(units)
	s.Categories = []schema.Category{{Name: first, Mask: 2}, {Name: second, Mask: 4}}
	bit := map[string]uint64{first: 2, second: 4}
	s.Formats[0].Category = bit["exec"]  // fetch
	s.Formats[1].Category = bit["stall"] // decode
	evs := ctracetest.W1Events(n, units, seed)
	for i := range evs {
		evs[i].Category = uint32(s.Formats[evs[i].FormatID-1].Category)
	}
	return s, evs
}

// Issue 21 item 9: diff compares categories by name. Two runs whose only
// difference is the order their categories were registered in have
// identical dumps and are equal; a run whose events moved to the other
// category is not.
func TestDiffCategoriesByName(t *testing.T) {
	dir := t.TempDir()
	sa, a := categoryRun("stall", "exec", 20000, 16, 3)
	sb, b := categoryRun("exec", "stall", 20000, 16, 3)
	pa := writeTrace(t, dir, "a.ctrace", sa, a, ourLayout)
	pb := writeTrace(t, dir, "b.ctrace", sb, b, ourLayout)
	pc := writeTrace(t, dir, "c.ctrace", sb, b, cLayout) // and another layout
	for _, p := range []string{pb, pc} {
		code, out, errOut := diffTool(t, pa, p)
		require.Equal(t, 0, code, "%s%s", out, errOut)
		require.Empty(t, out)
		code, _, _ = diffTool(t, p, pa)
		require.Equal(t, 0, code)
	}
	// The same bits under swapped names: every event changed category.
	sd := *sb
	sd.Categories = sa.Categories
	pd := writeTrace(t, dir, "d.ctrace", &sd, b, ourLayout)
	code, out, _ := diffTool(t, pa, pd)
	require.Equal(t, 1, code, out)
	require.NotEmpty(t, out)
}
