package chronon_test

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

func TestSpansCountersAndFlowsAreDescribedInTheSchema(t *testing.T) {
	rob := chronon.MustSpan("rob.entry")
	occ := chronon.MustCounter("rob.occupancy")
	ipc, err := chronon.NewFloatCounter("ipc")
	require.NoError(t, err)
	fetch := chronon.MustFormat2[uint64, uint64]("fetch seq={} pc=0x{:x}", chronon.WithFlow(0))
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	rob.Begin(u, 10, 3, 77)
	rob.End(u, 14, 3, 77)
	rob.Complete(u, 20, 5, 1, 78)
	occ.Sample(u, 21, -4)
	ipc.Sample(u, 22, 1.5)
	fetch.Emit(u, 23, 78, 0x400000)
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	byText := map[string]schema.Format{}
	for _, f := range got.schema.Formats {
		byText[f.Format] = f
	}
	begin := byText["rob.entry begin lane={} flow={}"]
	require.Equal(t, schema.KindSpanBegin, begin.Kind)
	require.Equal(t, []schema.ArgRole{schema.RoleLane, schema.RoleFlow}, begin.ArgRoles)
	require.Equal(t, "rob.entry", begin.Name)
	complete := byText["rob.entry lane={} flow={} dur={}"]
	require.Equal(t, schema.KindSpanComplete, complete.Kind)
	require.Equal(t, []schema.ArgRole{schema.RoleLane, schema.RoleFlow, schema.RoleDuration}, complete.ArgRoles)
	require.Equal(t, schema.KindSpanEnd, byText["rob.entry end lane={} flow={}"].Kind)
	c := byText["rob.occupancy={}"]
	require.Equal(t, schema.KindCounter, c.Kind)
	require.Equal(t, []schema.ArgType{schema.ArgInt64}, c.ArgTypes)
	require.Equal(t, "rob.occupancy", c.Name)
	require.Equal(t, []schema.ArgType{schema.ArgDouble}, byText["ipc={}"].ArgTypes)
	f := byText["fetch seq={} pc=0x{:x}"]
	require.Equal(t, schema.KindInstant, f.Kind)
	require.Equal(t, []schema.ArgRole{schema.RoleFlow, schema.RolePlain}, f.ArgRoles)
	require.Len(t, got.events, 6)
	// Complete stores the start cycle and lane, flow, duration in that order.
	require.Equal(t, uint64(20), got.events[2].rec.Cycle)
	require.Equal(t, string(cat(le32(1), u64(78), u64(5))), got.events[2].args)
}

func TestRoleValidation(t *testing.T) {
	_, err := chronon.NewFormat1[string]("s {}", chronon.WithFlow(0))
	require.ErrorContains(t, err, "role flow cannot have type string")
	_, err = chronon.NewFormat1[uint64]("x {}", chronon.WithFlow(3))
	require.ErrorContains(t, err, "flow argument 3 but 1 arguments")
	_, err = chronon.NewSpan("")
	require.Error(t, err)
	_, err = chronon.NewFormat1[float64]("c {}", chronon.WithKind(schema.KindCounter, schema.RoleValue))
	require.NoError(t, err, "float counters are fine")
}

// Spans and counters record where the user registered them, not the
// library's spans.go (every one of them used to say spans.go:38 or so).
// A float counter's samples read back as the doubles emitted.
func TestSpansAndCountersRecordTheCallersSource(t *testing.T) {
	_, file, line, _ := runtime.Caller(0)
	mspan := chronon.MustSpan("src.mspan")                                 // line+1
	nspan, err := chronon.NewSpan("src.nspan")                             // line+2
	mctr := chronon.MustCounter("src.mctr")                                // line+3
	nctr, err2 := chronon.NewCounter("src.nctr")                           // line+4
	mfc := chronon.MustFloatCounter("src.mfc")                             // line+5
	nfc, err3 := chronon.NewFloatCounter("src.nfc")                        // line+6
	own := chronon.MustCounter("src.own", chronon.WithSource("sim.go", 9)) // WithSource still wins
	require.NoError(t, errors.Join(err, err2, err3))

	tr, path := create(t)
	u := units(t, tr, 1)[0]
	mspan.Complete(u, 1, 2, 0, 0)
	nspan.Complete(u, 2, 2, 0, 0)
	mctr.Sample(u, 3, -3)
	nctr.Sample(u, 4, 4)
	mfc.Sample(u, 5, 2.5)
	nfc.Sample(u, 6, -0.125)
	own.Sample(u, 7, 7)
	require.NoError(t, tr.Close())
	got := readBack(t, path)

	want := map[string]int{
		"src.mspan begin lane={} flow={}": line + 1, "src.mspan end lane={} flow={}": line + 1,
		"src.mspan lane={} flow={} dur={}": line + 1, "src.nspan lane={} flow={} dur={}": line + 2,
		"src.mctr={}": line + 3, "src.nctr={}": line + 4, "src.mfc={}": line + 5, "src.nfc={}": line + 6,
	}
	byText := map[string]schema.Format{}
	for _, f := range got.schema.Formats {
		byText[f.Format] = f
	}
	for text, wantLine := range want {
		f, ok := byText[text]
		require.True(t, ok, text)
		require.Equal(t, file, f.File, text)
		require.Equal(t, uint32(wantLine), f.Line, text)
	}
	require.Equal(t, "sim.go", byText["src.own={}"].File)
	require.Equal(t, uint32(9), byText["src.own={}"].Line)
	require.Equal(t, []schema.ArgType{schema.ArgDouble}, byText["src.mfc={}"].ArgTypes)
	require.Equal(t, schema.KindCounter, byText["src.mfc={}"].Kind)

	require.Len(t, got.events, 7)
	require.Equal(t, string(u64(math.Float64bits(2.5))), got.events[4].args)
	require.Equal(t, string(u64(math.Float64bits(-0.125))), got.events[5].args)
	require.Equal(t, byText["src.mfc={}"].ID, got.events[4].rec.FormatID)
}

// A complete span whose end (start + dur) is past the last cycle is what
// Complete(u, start, end-start) records when end < start: read back it
// was a span of 1.8e19 cycles, which stats averaged. Complete refuses it:
// nothing is written, the unit counts it (UnitStats.Rejected) and the
// first is the tracer's error, returned by Err and Close. Spans that end
// at the last cycle are fine, and the refusal costs no allocation.
func TestCompleteSpanEndingBeforeItBeginsIsRefusedAndCounted(t *testing.T) {
	exec := chronon.MustSpan("exec")
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	exec.Complete(u, 100, 5, 0, 1)
	start, end := uint64(200), uint64(150)
	exec.Complete(u, start, end-start, 0, 2)    // the caller's wrapped subtraction
	exec.Complete(u, math.MaxUint64-3, 3, 0, 3) // ends at the last cycle: a real span
	require.ErrorIs(t, tr.Err(), chronon.ErrImpossibleSpan)
	require.ErrorContains(t, tr.Err(), `"exec"`)
	require.ErrorContains(t, tr.Err(), "cycle 200")
	require.ErrorContains(t, tr.Err(), `"u0"`)
	require.Zero(t, testing.AllocsPerRun(100, func() { exec.Complete(u, 300, math.MaxUint64, 0, 4) }))
	st := tr.Stats()
	require.Equal(t, uint64(102), st.Units[0].Rejected)
	err := tr.Close()
	require.ErrorIs(t, err, chronon.ErrImpossibleSpan)
	got := readBack(t, path)
	require.Len(t, got.events, 2)
	require.Equal(t, uint64(100), got.events[0].rec.Cycle)
	require.Equal(t, uint64(math.MaxUint64-3), got.events[1].rec.Cycle)
	require.Equal(t, uint64(102), tr.Stats().Units[0].Rejected)
}
