package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// info of a trace recorded with a selection says how many of its units
// the units= patterns kept, and warns when none: units=core1 (patterns are
// on the whole name) records nothing of core1.fetch, with exit 0.
func TestInfoSaysWhatTheSelectionKept(t *testing.T) {
	none := unitsTrace(t, "none.ctrace", chronon.WithSelect("units=core1;cycles=100-"))
	code, out, _ := runTool("info", none)
	require.Equal(t, 0, code)
	require.Contains(t, out, "  chronon.select: units=core1;cycles=100-\n"+
		"    units= kept 0 of 6 units (patterns are path.Match on the whole name)\n"+
		"    Warning: units= matches no unit of this file: it holds none of their events; units=core1* would match 2\n")

	some := unitsTrace(t, "some.ctrace", chronon.WithSelect("units=core1.*,core0.l2"))
	_, out, _ = runTool("info", some)
	require.Contains(t, out, "  chronon.select: units=core1.*,core0.l2\n"+
		"    units= kept 3 of 6 units (patterns are path.Match on the whole name)\n")
	require.NotContains(t, out, "Warning")

	// No units= part: nothing to count.
	cyc := unitsTrace(t, "cyc.ctrace", chronon.WithSelect("cycles=5-"))
	_, out, _ = runTool("info", cyc)
	require.Contains(t, out, "  chronon.select: cycles=5-\n")
	require.NotContains(t, out, "units= kept")

	// A merged file keeps each file's selection under its label: counted
	// on that file's units, without the label.
	all := filepath.Join(t.TempDir(), "all.ctrace")
	code, _, stderr := runTool("merge", "-o", all, none, some)
	require.Equal(t, 0, code, stderr)
	_, out, _ = runTool("info", all)
	require.Contains(t, out, "  none/chronon.select: units=core1;cycles=100-\n"+
		"    units= kept 0 of 6 units (patterns are path.Match on the whole name)\n"+
		"    Warning: units= matches no unit of the run none: it holds none of their events; units=core1* would match 2\n")
	require.Contains(t, out, "  some/chronon.select: units=core1.*,core0.l2\n"+
		"    units= kept 3 of 6 units (patterns are path.Match on the whole name)\n")
	require.Equal(t, 1, strings.Count(out, "Warning"))
}
