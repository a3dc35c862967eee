package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// openSpansTrace writes dir/name: n spans begun on lane 0 and never ended.
// The file is made with its own schema (ctracetest's writer), not by
// registering a span: every trace a test of this package writes carries
// every format the process registered, and a named span's table is
// NAME_spans in a dataset but NAME in a file, so a registered span made
// the dataset tests' files and datasets disagree.
func openSpansTrace(t *testing.T, dir, name string, n int) string {
	t.Helper()
	sch := &schema.Schema{
		Units: []schema.Unit{{ID: 1, Name: "u"}},
		Formats: []schema.Format{{ID: 1, Format: "open begin lane={} flow={}", Name: "open", Kind: schema.KindSpanBegin,
			ArgTypes: []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64}, ArgRoles: []schema.ArgRole{schema.RoleLane, schema.RoleFlow}}},
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := ctracetest.NewWriter(f, sch, ctracetest.Options{Compress: true, PerUnit: true})
	require.NoError(t, err)
	args := ctracetest.Args{}.U32(0).U64(0)
	for i := range n {
		require.NoError(t, w.Add(schema.Record{Cycle: uint64(i), FormatID: 1, SourceID: 1, ArgCount: 2}, args))
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return path
}

// stats and export of several files read them merged into a temporary
// trace, whose name the errors gave ("/tmp/.../.trace_reader-merge-....ctrace:
// at cycle 47104 ..."): the user never saw that file. The errors name the
// inputs instead, "a.ctrace, b.ctrace (merged): at cycle ...".
func TestSeveralFilesErrorsNameTheInputsNotTheMerge(t *testing.T) {
	dir := t.TempDir()
	a := openSpansTrace(t, dir, "open.ctrace", 20_000)
	b := openSpansTrace(t, dir, "open2.ctrace", 20_000)
	for _, args := range [][]string{
		{"stats", "--memory", "1MiB", a, b},
		{"stats", "--json", "--memory", "1MiB", a, b},
		{"export", "--memory", "1MiB", "-o", filepath.Join(dir, "o.pftrace"), a, b},
		{"export", "--format", "chrome-json", "--memory", "1MiB", "-o", filepath.Join(dir, "o.json"), a, b},
	} {
		code, _, errOut := runTool(args...)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.True(t, strings.HasPrefix(errOut, "trace_reader: "+a+", "+b+" (merged): at cycle "), "%v: %s", args, errOut)
		require.NotContains(t, errOut, ".trace_reader-merge-", "%v", args)
		require.Contains(t, errOut, "(--memory)", "%v", args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %s", args, errOut)
	}
}
