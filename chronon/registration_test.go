package chronon_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// Registering the same format twice (a simulator building its model twice,
// an adapter created per component) returns the same format, not a second
// id for one meaning; any difference in what the file records about it
// makes another format.
func TestIdenticalRegistrationsShareAFormat(t *testing.T) {
	const text = "dedup req id={} kind={}"
	register := func(opts ...chronon.FormatOption) *chronon.Format2[uint64, uint32] {
		f, err := chronon.NewFormat2[uint64, uint32](text, opts...)
		require.NoError(t, err)
		return f
	}
	first := register(chronon.WithSource("a.go", 1))
	again := register(chronon.WithSource("b.go", 2)) // another call site: the same format
	require.Equal(t, first.ID(), again.ID())

	others := map[string]uint32{
		"category": register(chronon.WithCategory(1 << 40)).ID(),
		"name":     register(chronon.WithName("req")).ID(),
		"log":      register(chronon.AsLog(2)).ID(),
		"flow":     register(chronon.WithFlow(0)).ID(),
		"kind":     register(chronon.WithKind(schema.KindCounter, schema.RolePlain, schema.RoleValue)).ID(),
	}
	seen := map[uint32]string{first.ID(): "first"}
	for what, id := range others {
		require.NotContains(t, seen, id, "a registration differing in %s shares id %d with %s", what, id, seen[id])
		seen[id] = what
	}
	// Different types or text: different formats.
	require.NotEqual(t, first.ID(), chronon.MustFormat2[uint64, uint64](text).ID())
	require.NotEqual(t, first.ID(), chronon.MustFormat2[uint64, uint32](text+" ").ID())
	// Spans, counters and the other helpers register through the same path.
	s1, s2 := chronon.MustSpan("dedup.span"), chronon.MustSpan("dedup.span")
	require.Equal(t, s1.Name(), s2.Name())

	// Both handles emit the one format; the schema lists it once, with the
	// first registration's source location.
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	first.Emit(u, 1, 7, 1)
	again.Emit(u, 2, 8, 2)
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	n := 0
	for _, f := range got.schema.Formats {
		if f.Format == text && f.Name == "" && f.Category == chronon.CategoryDefault && !f.IsLog && len(f.ArgRoles) == 0 && f.ArgTypes[1] == schema.ArgUInt32 {
			n++
			require.Equal(t, "a.go", f.File)
			require.Equal(t, uint32(1), f.Line)
		}
	}
	require.Equal(t, 1, n, "the schema lists the format once")
	require.Len(t, got.events, 2)
	require.Equal(t, got.events[0].rec.FormatID, got.events[1].rec.FormatID)
}
