package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// modelTrace writes a trace whose cycles are picoseconds, with one unit
// on a clock of its own (3 GHz) and three interned strings.
func modelTrace(t *testing.T) string {
	t.Helper()
	s := &schema.Schema{
		Formats:  []schema.Format{{ID: 1, Format: "tag kind={}", ArgTypes: []schema.ArgType{schema.ArgUInt32}, ArgRoles: []schema.ArgRole{schema.RoleSymbol}}},
		Units:    []schema.Unit{{ID: 1, Name: "gpu.l2"}, {ID: 2, Name: "cpu.core0", TimeBase: schema.Hz(3_000_000_000)}},
		TimeBase: schema.Picoseconds,
		Symbols:  []string{"req_in", "req_out", "evict"},
	}
	b, err := ctracetest.Build(s, []ctracetest.Event{
		{Record: schema.Record{Cycle: 5, FormatID: 1, SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U32(2)},
	}, ctracetest.Options{})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "model.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// info shows the file's time base, the units on a clock of their own
// (listed with -v) and how many interned strings the file holds; a file
// without them says so.
func TestInfoShowsTimeBasesAndSymbols(t *testing.T) {
	path := modelTrace(t)
	code, out, errOut := runTool("info", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\nTime and Strings:\n"+
		"  Time base: 1 ps per cycle\n"+
		"  Units on a clock of their own: 1 (info -v lists them)\n"+
		"  Interned strings: 3\n")
	code, out, errOut = runTool("info", "-v", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\nTime and Strings:\n"+
		"  Time base: 1 ps per cycle\n"+
		"  Units on a clock of their own: 1\n"+
		"    [2] cpu.core0: 1/3000000000 s per cycle\n"+
		"  Interned strings: 3\n")
	code, out, errOut = runTool("info", ref("raw.ctrace"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\nTime and Strings:\n"+
		"  Time base: none (cycles only)\n"+
		"  Interned strings: 0\n")
}

func TestInfoJSONShowsTimeBasesAndSymbols(t *testing.T) {
	code, out, errOut := runTool("info", "--json", modelTrace(t), ref("raw.ctrace"))
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Files []struct {
			TimeBase *struct {
				Text     string `json:"text"`
				Num, Den uint64
			} `json:"time_base"`
			Symbols *int `json:"symbols"`
			Units   []struct {
				Name     string `json:"name"`
				TimeBase *struct {
					Text     string `json:"text"`
					Num, Den uint64
				} `json:"time_base"`
			} `json:"units"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Files, 2)
	f := rep.Files[0]
	require.NotNil(t, f.TimeBase, out)
	require.Equal(t, "1 ps", f.TimeBase.Text)
	require.Equal(t, [2]uint64{1, 1_000_000_000_000}, [2]uint64{f.TimeBase.Num, f.TimeBase.Den})
	require.NotNil(t, f.Symbols, out)
	require.Equal(t, 3, *f.Symbols)
	require.Len(t, f.Units, 2)
	require.Nil(t, f.Units[0].TimeBase, "the file's time base")
	require.NotNil(t, f.Units[1].TimeBase, out)
	require.Equal(t, "1/3000000000 s", f.Units[1].TimeBase.Text)
	require.Equal(t, [2]uint64{1, 3_000_000_000}, [2]uint64{f.Units[1].TimeBase.Num, f.Units[1].TimeBase.Den})
	f = rep.Files[1]
	require.Nil(t, f.TimeBase, "the original's file: cycles only")
	require.NotNil(t, f.Symbols, out)
	require.Equal(t, 0, *f.Symbols)
	require.Contains(t, out, `"time_base": null`)
}

// info -v lists the interned strings under their count, by id, the first
// 20 of them and how many more (a table may hold 65,536), written as dump
// writes text; --json -v has them as symbol_list, --json alone only the
// count.
func TestInfoListsInternedStrings(t *testing.T) {
	syms := []string{"req_in", "line\nbreak"}
	for i := range 23 {
		syms = append(syms, fmt.Sprintf("s%02d", i))
	}
	s := &schema.Schema{
		Formats: []schema.Format{{ID: 1, Format: "tag kind={}", ArgTypes: []schema.ArgType{schema.ArgUInt32}, ArgRoles: []schema.ArgRole{schema.RoleSymbol}}},
		Units:   []schema.Unit{{ID: 1, Name: "gpu.l2"}},
		Symbols: syms,
	}
	b, err := ctracetest.Build(s, []ctracetest.Event{
		{Record: schema.Record{Cycle: 5, FormatID: 1, SourceID: 1, ArgCount: 1}, Args: ctracetest.Args{}.U32(2)},
	}, ctracetest.Options{})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "syms.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	want := "  Interned strings: 25\n    [0] req_in\n    [1] line\\nbreak\n"
	for i := range 18 {
		want += fmt.Sprintf("    [%d] s%02d\n", i+2, i)
	}
	want += "    ... and 5 more (info --strings lists them all)\n"
	code, out, errOut := runTool("info", "-v", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, want)
	code, out, errOut = runTool("info", path)
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.HasSuffix(out, "  Interned strings: 25\n"), "listed with -v only: %s", out)

	type symbol struct {
		ID   uint32 `json:"id"`
		Text string `json:"text"`
	}
	var rep struct {
		Files []struct {
			Symbols    int       `json:"symbols"`
			SymbolList *[]symbol `json:"symbol_list"`
		} `json:"files"`
	}
	code, out, errOut = runTool("info", "--json", "-v", path)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, 25, rep.Files[0].Symbols)
	require.NotNil(t, rep.Files[0].SymbolList)
	list := *rep.Files[0].SymbolList
	require.Len(t, list, 20)
	require.Equal(t, symbol{1, "line\nbreak"}, list[1])
	require.Equal(t, symbol{19, "s17"}, list[19])
	code, out, errOut = runTool("info", "--json", path)
	require.Equal(t, 0, code, errOut)
	rep.Files = nil
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Nil(t, rep.Files[0].SymbolList, "with -v only")

	// --strings: every one of them, in the text and in --json.
	all := "  Interned strings: 25\n    [0] req_in\n    [1] line\\nbreak\n"
	for i := range 23 {
		all += fmt.Sprintf("    [%d] s%02d\n", i+2, i)
	}
	for _, args := range [][]string{{"info", "--strings", path}, {"info", "-v", "--strings", path}} {
		code, out, errOut = runTool(args...)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, all, args)
		require.NotContains(t, out, "more (info --strings", args)
	}
	code, out, errOut = runTool("info", "--json", "--strings", path)
	require.Equal(t, 0, code, errOut)
	rep.Files = nil
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.NotNil(t, rep.Files[0].SymbolList)
	list = *rep.Files[0].SymbolList
	require.Len(t, list, 25)
	require.Equal(t, symbol{24, "s22"}, list[24])
}
