package mmapio

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// An argument with the Symbol role prints as its string, as the dump and
// Event.Message print it: an id past the table as "[symbol N]", the
// overflow id as "[symbol table full]", control characters escaped. Its
// value stays the id.
func TestArgStringPrintsSymbols(t *testing.T) {
	u32 := schema.ArgUInt32
	s := &schema.Schema{
		Formats: []schema.Format{{ID: 1, Format: "tag kind={} where={:x} n={} far={}", ArgTypes: T{u32, u32, u32, u32},
			ArgRoles: []schema.ArgRole{schema.RoleSymbol, schema.RoleSymbol, schema.RolePlain, schema.RoleSymbol}}},
		Units:   []schema.Unit{{ID: 1, Name: "l2"}},
		Symbols: []string{"req_in", "L2\tbank"},
	}
	args := A{}.U32(0).U32(1).U32(1).U32(9)
	args2 := A{}.U32(schema.SymbolOverflow).U32(0).U32(0).U32(0)
	b, err := ctracetest.Build(s, []ctracetest.Event{
		{Record: schema.Record{Cycle: 1, FormatID: 1, SourceID: 1, ArgCount: 4}, Args: args},
		{Record: schema.Record{Cycle: 2, FormatID: 1, SourceID: 1, ArgCount: 4}, Args: args2},
	}, ctracetest.Options{})
	require.NoError(t, err)
	r := openBytesT(t, b)
	var lines, msgs []string
	for ev := range r.Events(Query{}) {
		var line []byte
		for i, a := range ev.Args() {
			if i > 0 {
				line = append(line, ' ')
			}
			line = append(line, a.String()...)
			line = append(line, '|')
			line = a.AppendText(line, true)
		}
		lines = append(lines, string(line))
		msgs = append(msgs, ev.Message())
	}
	require.Equal(t, []string{
		`req_in|req_in L2\tbank|L2\tbank 1|1 [symbol 9]|[symbol 9]`,
		`[symbol table full]|[symbol table full] req_in|req_in 0|0 req_in|req_in`,
	}, lines)
	require.Equal(t, []string{
		`tag kind=req_in where=L2\tbank n=1 far=[symbol 9]`,
		`tag kind=[symbol table full] where=req_in n=0 far=req_in`,
	}, msgs)
	for ev := range r.Events(Query{}) {
		a, _ := ev.ArgByName("kind")
		require.Equal(t, schema.RoleSymbol, a.Role)
		require.Less(t, a.Uint(), uint64(1<<32))
		a, _ = ev.ArgByName("n")
		require.Equal(t, schema.RolePlain, a.Role)
		break
	}
}
