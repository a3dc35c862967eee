//go:build cgo

package tracesql_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// One rule, whatever order a writer registered its formats in: a named
// span's table has the span's name (fetch_, a keyword's), and a format
// whose first word is a span's gets _<format_id> (fetch_4). Two traces
// that registered the same formats in the other order name them alike.
func TestSpanTakesItsNameWhateverTheOrder(t *testing.T) {
	spanFirst, formatFirst := spanAndFormatTraces(t)
	for _, paths := range [][]string{{spanFirst}, {formatFirst}, {formatFirst, spanFirst}} {
		db := open(t, paths)
		got := map[string]string{}
		for _, tb := range db.Tables() {
			switch {
			case tb.Span != "":
				got[tb.Name] = "span " + tb.Span
			case tb.Format != "":
				got[tb.Name] = tb.Format
			}
		}
		require.Equal(t, map[string]string{
			"fetch_": "span fetch", "fetch_4": "fetch pc={}",
			"decode": "span decode", "decode_7": "decode uop={}",
		}, got, "%q", paths)
		n := fmt.Sprint(len(paths)) // one event of each format per trace
		require.Equal(t, n, one(t, db, "SELECT count(*) FROM fetch_4"))
		require.Equal(t, n, one(t, db, "SELECT count(*) FROM decode_7"))
		require.Equal(t, n, one(t, db, "SELECT count(*) FROM fetch_"), "the fetch spans")
	}
}

// spanAndFormatTrace is a trace with a span and a format both named fetch.
func spanAndFormatTrace(t *testing.T) string {
	p, _ := spanAndFormatTraces(t)
	return p
}

// spanAndFormatTraces writes two traces of the same spans and formats
// (fetch and decode, each a span and a format), registered in either order.
func spanAndFormatTraces(t *testing.T) (spanFirst, formatFirst string) {
	dir := t.TempDir()
	lf := []schema.ArgRole{schema.RoleLane, schema.RoleFlow}
	u32, u64 := schema.ArgUInt32, schema.ArgUInt64
	span := []schema.Format{
		{ID: 2, Format: "fetch begin lane={} flow={}", ArgTypes: []schema.ArgType{u32, u64}, Kind: schema.KindSpanBegin, ArgRoles: lf, Name: "fetch"},
		{ID: 3, Format: "fetch end lane={} flow={}", ArgTypes: []schema.ArgType{u32, u64}, Kind: schema.KindSpanEnd, ArgRoles: lf, Name: "fetch"},
		{ID: 5, Format: "decode begin lane={} flow={}", ArgTypes: []schema.ArgType{u32, u64}, Kind: schema.KindSpanBegin, ArgRoles: lf, Name: "decode"},
		{ID: 6, Format: "decode end lane={} flow={}", ArgTypes: []schema.ArgType{u32, u64}, Kind: schema.KindSpanEnd, ArgRoles: lf, Name: "decode"},
	}
	plain := []schema.Format{
		{ID: 4, Format: "fetch pc={}", ArgTypes: []schema.ArgType{u64}},
		{ID: 7, Format: "decode uop={}", ArgTypes: []schema.ArgType{u64}},
	}
	write := func(name string, formats ...[]schema.Format) string {
		s := &schema.Schema{Version: 1, Units: []schema.Unit{{ID: 1, Name: "core0"}}}
		for _, fs := range formats {
			s.Formats = append(s.Formats, fs...)
		}
		var evs []ctracetest.Event
		for i, id := range []uint32{2, 3, 4, 5, 6, 7} {
			a, argc := ctracetest.Args{}.U32(0).U64(1), uint8(2) // lane, flow
			if id == 4 || id == 7 {
				a, argc = ctracetest.Args{}.U64(uint64(i)), 1
			}
			evs = append(evs, ctracetest.Event{Record: schema.Record{Cycle: uint64(10 + i), FormatID: id, SourceID: 1, ArgCount: argc}, Args: a})
		}
		b, err := ctracetest.Build(s, evs, ctracetest.Options{})
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o644))
		return path
	}
	return write("spanfirst.ctrace", span, plain), write("formatfirst.ctrace", plain, span)
}
