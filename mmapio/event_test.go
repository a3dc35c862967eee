package mmapio

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

type A = ctracetest.Args

const (
	u64, i32 = schema.ArgUInt64, schema.ArgInt32
	f64, str = schema.ArgDouble, schema.ArgString
	bol      = schema.ArgBool
)

type T = []schema.ArgType

func TestEventAccessors(t *testing.T) {
	s := &schema.Schema{
		Formats: []schema.Format{{ID: 3, Format: "cache {} addr=0x{:x} lat={} hit={} t={}", ArgTypes: T{str, u64, i32, bol, f64}}},
		Units:   []schema.Unit{{ID: 1, Name: "core0.l2"}},
	}
	args := A{}.Str("iq").U64(0xbeef).I32(-12).Bool(true).F64(2.5)
	b, err := ctracetest.Build(s, []ctracetest.Event{{Record: schema.Record{Cycle: 9, FormatID: 3, SourceID: 1, ArgCount: 5, Category: 4}, Args: args}}, ctracetest.Options{})
	require.NoError(t, err)
	r := openBytesT(t, b)
	var got []Event
	for ev := range r.Events(Query{}) {
		got = append(got, ev.Clone())
	}
	require.Len(t, got, 1)
	ev := got[0]
	require.Equal(t, uint64(9), ev.Cycle)
	require.Equal(t, uint32(4), ev.Category)
	require.Equal(t, "cache iq addr=0xbeef lat=-12 hit=true t=2.5", ev.Message())
	require.Equal(t, 5, ev.NumArgs())
	a, ok := ev.Arg(0)
	require.True(t, ok)
	require.Equal(t, "iq", string(a.Bytes()))
	require.Equal(t, "iq", a.String())
	a, _ = ev.ArgByName("addr")
	require.Equal(t, uint64(0xbeef), a.Uint())
	require.Equal(t, "beef", string(a.AppendText(nil, true)))
	a, _ = ev.ArgByName("lat")
	require.Equal(t, int64(-12), a.Int())
	require.Equal(t, -12.0, a.Float())
	a, _ = ev.ArgByName("hit")
	require.True(t, a.Bool())
	a, _ = ev.ArgByName("t")
	require.Equal(t, 2.5, a.Float())
	require.Equal(t, int64(2), a.Int())
	_, ok = ev.Arg(5)
	require.False(t, ok)
	_, ok = ev.ArgByName("nope")
	require.False(t, ok)
	require.Equal(t, "lat", ev.Format().ArgName(2))
	require.Equal(t, "[         9] core0.l2: cache iq addr=0xbeef lat=-12 hit=true t=2.5\n", string(appendLine(r, nil, &ev)))
	require.Equal(t, "core0.l2", r.UnitName(1))
	require.Equal(t, "", r.UnitName(2))
}
