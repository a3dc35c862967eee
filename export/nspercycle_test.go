package export

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// Under 1 ns per cycle (a clock over 1 GHz), whole-ns timestamps would
// merge cycles (at 0.25, 65% of pipesim's slices became zero-length). The
// export keeps one cycle per ns instead and says so in the result; every
// slice keeps its length in cycles, in both formats.
func TestNsPerCycleBelowOneKeepsCycles(t *testing.T) {
	const n = 200
	trace := pipesimTrace(t, n)
	for _, format := range []string{FormatPerfetto, FormatChromeJSON} {
		res, out := exportFile(t, trace, mmapio.Query{}, WithFormat(format), WithNsPerCycle(0.25))
		var v *vTrace
		var err error
		if format == FormatPerfetto {
			v, err = validatePerfetto(out)
		} else {
			v, err = validateChrome(out)
		}
		require.NoError(t, err)
		checkPipeline(t, v, n) // exact cycle timestamps and slice lengths
		require.Equal(t, 1.0, res.NsPerCycle, format)
		require.Equal(t, 4.0, res.TimeScale, format)
	}
	res, _ := exportFile(t, trace, mmapio.Query{}, WithNsPerCycle(2.5))
	require.Equal(t, 2.5, res.NsPerCycle)
	require.Equal(t, 1.0, res.TimeScale)
}
