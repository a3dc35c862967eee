//go:build cgo

package tracesql_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// clashRuns writes two runs: one with a format fetch pc={} (W1's), one
// with a span named fetch (pipesim's) beside a format fetch pc={} of
// format id 7.
func clashRuns(t *testing.T) (w1, pipe string) {
	t.Helper()
	dir := t.TempDir()
	u := []schema.Unit{{ID: 1, Name: "core0"}}
	fetch := schema.Format{ID: 1, Format: "fetch pc={}", ArgTypes: []schema.ArgType{schema.ArgUInt64}}
	ev := func(c uint64, fid uint32, args ctracetest.Args, n uint8) ctracetest.Event {
		return ctracetest.Event{Record: schema.Record{Cycle: c, FormatID: fid, SourceID: 1, ArgCount: n}, Args: args}
	}
	b, err := ctracetest.Build(&schema.Schema{Version: 1, Units: u, Formats: []schema.Format{fetch}},
		[]ctracetest.Event{ev(10, 1, ctracetest.Args{}.U64(0x40), 1), ev(20, 1, ctracetest.Args{}.U64(0x44), 1)}, ctracetest.Options{})
	require.NoError(t, err)
	w1 = filepath.Join(dir, "w1.ctrace")
	require.NoError(t, os.WriteFile(w1, b, 0o644))

	span := schema.Format{ID: 3, Format: "fetch lane={} dur={}", Name: "fetch", Kind: schema.KindSpanComplete,
		ArgTypes: []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64}, ArgRoles: []schema.ArgRole{schema.RoleLane, schema.RoleDuration}}
	fetch7 := fetch
	fetch7.ID = 7
	b, err = ctracetest.Build(&schema.Schema{Version: 1, Units: u, Formats: []schema.Format{span, fetch7}},
		[]ctracetest.Event{ev(5, 3, ctracetest.Args{}.U32(0).U64(4), 2), ev(6, 7, ctracetest.Args{}.U64(0x80), 1)}, ctracetest.Options{})
	require.NoError(t, err)
	pipe = filepath.Join(dir, "pipe.ctrace")
	require.NoError(t, os.WriteFile(pipe, b, 0o644))
	return w1, pipe
}

// Issue 22: two runs exported into one dataset, each naming its tables
// alone. Without WithRunNames the span fetch of one run and the format
// fetch pc={} of the other are both fetch_; with it the format is fetch_
// in both runs (its events, pc, from both) and the span fetch_spans.
func TestRunNamesHoldAcrossRuns(t *testing.T) {
	w1, pipe := clashRuns(t)
	export := func(dir string, opts ...tracesql.Option) {
		for label, p := range map[string]string{"w1": w1, "pipe": pipe} {
			db := open(t, []string{p}, opts...)
			stage, err := os.MkdirTemp(dir, ".stage-")
			require.NoError(t, err)
			_, err = db.ExportParquet(stage)
			require.NoError(t, err)
			require.NoError(t, tracesql.PublishPartition(dir, label, stage))
		}
	}

	clash := t.TempDir()
	export(clash)
	ds := open(t, []string{clash})
	require.Equal(t, []string{"pipe|1", "w1|2"}, rows(t, ds, "SELECT trace, count(*) FROM fetch_ GROUP BY trace ORDER BY trace"),
		"the clash this test is about: pipe's span rows are in fetch_ beside w1's events")

	stable := t.TempDir()
	export(stable, tracesql.WithRunNames())
	ds = open(t, []string{stable})
	require.Equal(t, []string{"pipe|6|128", "w1|10|64", "w1|20|68"}, rows(t, ds, "SELECT trace, cycle, pc FROM fetch_ ORDER BY trace, cycle"))
	require.Equal(t, []string{"pipe|5|9|4"}, rows(t, ds, `SELECT trace, start, "end", dur FROM fetch_spans`))
	require.Equal(t, []string{"pipe|fetch_|fetch pc={}", "pipe|fetch_spans|fetch lane={} dur={}", "w1|fetch_|fetch pc={}"},
		rows(t, ds, "SELECT trace, name, format FROM formats ORDER BY ALL"))
	require.Equal(t, []string{"pipe|fetch_", "pipe|fetch_spans", "w1|fetch_", "w1|fetch_"}, rows(t, ds, "SELECT trace, format FROM events ORDER BY ALL"))
	for _, tb := range ds.Tables() {
		require.NotEqual(t, "fetch_7", tb.Name)
	}

	// The files opened together keep their names: the span takes fetch_ first.
	files := open(t, []string{w1, pipe})
	require.Equal(t, []string{"pipe|5|4"}, rows(t, files, "SELECT trace, start, dur FROM fetch_"))
	require.Equal(t, []string{"pipe|6|128"}, rows(t, files, "SELECT trace, cycle, pc FROM fetch_7"))
}
