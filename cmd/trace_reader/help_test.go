package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// help CMD describes what the command does with each option: info ignores
// the original's filters, convert ignores --limit, export and recover need -o.
func TestHelpSaysWhatEachCommandDoesWithAnOption(t *testing.T) {
	line := func(cmd, opt string) string {
		code, out, _ := runTool("help", cmd)
		require.Equal(t, 0, code)
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), opt) {
				return l
			}
		}
		t.Fatalf("help %s lists no %s:\n%s", cmd, opt, out)
		return ""
	}
	for _, opt := range []string{"--cycles", "--unit", "--limit"} {
		require.Contains(t, line("info", opt), "ignored")
		require.NotContains(t, line("dump", opt), "ignored")
	}
	require.Contains(t, line("convert", "--limit"), "ignored")
	for _, cmd := range []string{"export", "recover"} {
		l := line(cmd, "-o")
		require.Contains(t, l, "required")
		require.NotContains(t, l, "standard output")
	}
}

// help diff says what diff does when no unit matches --unit: status 2 (an
// error), since 1 means "different"; and it does so.
func TestHelpDiffUnitStatus(t *testing.T) {
	code, out, _ := runTool("help", "diff")
	require.Equal(t, 0, code)
	var unit string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--unit") {
			unit = l
		}
	}
	require.Contains(t, unit, "none: status 2")
	require.NotContains(t, unit, "status 1")
	code, _, _ = runTool("diff", ref("multiblock.ctrace"), ref("multiblock.ctrace"), "--unit", "nosuch")
	require.Equal(t, 2, code)
}

// The top-level help lists every command the tool runs, every option of
// every command and every export format.
func TestTopLevelHelpIsComplete(t *testing.T) {
	code, out, _ := runTool("help")
	require.Equal(t, 0, code)
	cmds, _, _ := strings.Cut(out[strings.Index(out, "Commands:"):], "\n\n")
	var names []string
	for _, c := range commandTable {
		names = append(names, c.name)
	}
	for _, n := range names {
		require.Regexp(t, "\n  "+n+" ", cmds, "command %s", n)
		code, _, _ := runTool("help", n)
		require.Equal(t, 0, code, n)
	}
	for _, c := range commandTable {
		for _, o := range c.options {
			for _, n := range o.Names {
				require.Contains(t, out, " "+n, "%s's option %s", c.name, n)
			}
		}
	}
	format := out[strings.Index(out, "--format"):]
	format, _, _ = strings.Cut(format, "\n  --")
	for _, f := range exportFormats {
		require.Contains(t, format, f)
		code, _, stderr := runTool("export", "--format", f, ref("raw.ctrace"))
		require.Equal(t, 2, code, f) // every one is accepted: only -o is missing
		require.Contains(t, stderr, "-o", f)
	}
}
