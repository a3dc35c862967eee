package chronon_test

import (
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
