package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/cli"
	"github.com/chronon-sim/chronon-go/internal/cli/clitest"
)

// --version and version print the build the toolchain recorded in the
// binary; docs/cli.md holds trace_reader's reference as its tables make it
// (make docs rewrites it).
func TestBuiltBinaryVersionAndDocs(t *testing.T) {
	bin := toolBinary(t)
	clitest.CheckVersion(t, bin, "trace_reader")
	clitest.CheckDocs(t, bin, "trace_reader")
}

// help help is help's help; every command of the table has one.
func TestHelpHelp(t *testing.T) {
	code, out, _ := runTool("help", "help")
	require.Equal(t, 0, code)
	require.Equal(t, "Usage: trace_reader help [COMMAND]\n\nShow the commands, or one command's options (as COMMAND --help).\n", out)
	for _, c := range commandTable {
		code, out, _ := runTool("help", c.name)
		require.Equal(t, 0, code, c.name)
		require.True(t, strings.HasPrefix(out, "Usage: trace_reader "+c.name), c.name)
	}
	code, _, stderr := runTool("help", "dump", "info")
	require.Equal(t, 2, code)
	require.Equal(t, "trace_reader: help takes one command, not [\"dump\" \"info\"]\nRun 'trace_reader help help' for usage.\n", stderr)
}

// A bad --format names every format export writes, parquet included.
func TestExportFormatErrorListsEveryFormat(t *testing.T) {
	code, _, stderr := runTool("export", "--format", "svg", "-o", "x", ref("raw.ctrace"))
	require.Equal(t, 2, code)
	require.Equal(t, "trace_reader: export: --format \"svg\": want perfetto, chrome-json, kanata or parquet\nRun 'trace_reader help export' for usage.\n", stderr)
	for _, f := range exportFormats {
		require.Contains(t, stderr, f)
	}
	// Options the Parquet export has no use for are refused, not ignored.
	code, _, stderr = runTool("export", "--format", "parquet", "--ns-per-cycle", "2", "-o", "x", ref("raw.ctrace"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "option --ns-per-cycle does not apply to --format parquet")
}

// The one option syntax: a value after '=' or as the next argument,
// options before or after the file, -- ending them; version and
// completion take what they take.
func TestOptionSyntax(t *testing.T) {
	var outs []string
	for _, args := range [][]string{
		{"dump", "--limit=3", ref("raw.ctrace")},
		{"dump", ref("raw.ctrace"), "--limit", "3"},
		{"dump", "--limit", "3", "--", ref("raw.ctrace")},
	} {
		code, out, stderr := runTool(args...)
		require.Equal(t, 0, code, stderr)
		outs = append(outs, out)
	}
	require.Equal(t, 3, strings.Count(outs[0], "\n"))
	require.Equal(t, outs[0], outs[1])
	require.Equal(t, outs[0], outs[2])
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"version", "x"}, `version: takes no operand, not "x"`},
		{[]string{"completion"}, "completion: needs one of bash, zsh or fish"},
		{[]string{"completion", "tcsh"}, `completion: no completion for shell "tcsh" (shells: bash, zsh, fish)`},
		{[]string{"--version", "--json"}, "version: option --json is not one of version's"},
	} {
		code, out, stderr := runTool(c.args...)
		require.Equal(t, 2, code, "%q", c.args)
		require.Empty(t, out)
		first, _, _ := strings.Cut(stderr, "\n")
		require.Equal(t, "trace_reader: "+c.msg, first, "%q", c.args)
	}
}

// completionScript writes the script trace_reader prints for shell.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, stderr := runTool("completion", shell)
	require.Equal(t, 0, code, stderr)
	return clitest.Script(t, []byte(out), shell)
}

// traceDir holds a trace and another file, for completing file names.
func traceDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"run.ctrace", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	return dir
}

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }

// The bash script sources cleanly, registers itself, and completes as
// bash would call it on Tab (COMP_WORDS, COMP_CWORD): command names,
// a command's options, export's formats, trace files.
func TestBashCompletion(t *testing.T) {
	out, err := exec.Command("bash", "--norc", "-c", "source <("+toolBinary(t)+" completion bash) && complete -p trace_reader").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "complete -o filenames -F _trace_reader trace_reader\n", string(out))

	script, dir := completionScript(t, "bash"), traceDir(t)
	complete := func(words ...string) []string {
		return clitest.BashComplete(t, script, "_trace_reader", dir, words...)
	}
	require.Equal(t, []string{"info"}, complete("trace_reader", "inf"))
	require.Equal(t, []string{"completion", "convert"}, complete("trace_reader", "co"))
	var names []string
	for _, c := range commandTable {
		names = append(names, c.name)
	}
	require.Equal(t, sortedCopy(append(names, "-h", "--help", "--version")), complete("trace_reader", ""))
	require.Equal(t, []string{"--limit"}, complete("trace_reader", "dump", "--li"))
	require.Equal(t, sortedCopy(exportFormats), complete("trace_reader", "export", "--format", ""))
	require.Equal(t, []string{"parquet"}, complete("trace_reader", "export", "--format", "=", "pa"))
	require.Equal(t, []string{"run.ctrace"}, complete("trace_reader", "dump", ""))
	require.Equal(t, []string{"notes.txt", "run.ctrace"}, complete("trace_reader", "export", "-o", ""))
	require.Equal(t, sortedCopy(cli.Shells), complete("trace_reader", "completion", ""))
	require.Contains(t, complete("trace_reader", "help", ""), "sql")
}

// zsh: the script loaded after compinit completes a line typed in an
// interactive zsh and Tab.
func TestZshCompletion(t *testing.T) {
	script, dir := completionScript(t, "zsh"), traceDir(t)
	require.Equal(t, []string{"info"}, clitest.ZshComplete(t, script, dir, "trace_reader inf"))
	require.Equal(t, sortedCopy(exportFormats), clitest.ZshComplete(t, script, dir, "trace_reader export --format "))
	require.Equal(t, []string{"--limit"}, clitest.ZshComplete(t, script, dir, "trace_reader dump --lim"))
	require.Equal(t, []string{"run.ctrace"}, clitest.ZshComplete(t, script, dir, "trace_reader stats r"))
}

// fish's complete -C completes a command line as Tab would.
func TestFishCompletion(t *testing.T) {
	script, dir := completionScript(t, "fish"), traceDir(t)
	require.Equal(t, []string{"info"}, clitest.FishComplete(t, script, dir, "trace_reader inf"))
	require.Equal(t, sortedCopy(exportFormats), clitest.FishComplete(t, script, dir, "trace_reader export --format "))
	require.Equal(t, []string{"run.ctrace"}, clitest.FishComplete(t, script, dir, "trace_reader stats "))
	require.Equal(t, []string{"--limit"}, clitest.FishComplete(t, script, dir, "trace_reader dump --lim"))
}

// The manual page is valid man(7) (groff and mandoc read it without a
// warning) and documents every command and option.
func TestManPage(t *testing.T) {
	code, page, _ := runTool("--help-man")
	require.Equal(t, 0, code)
	for _, c := range commandTable {
		require.Contains(t, page, ".SS \""+c.name+"\"\n")
		for _, o := range c.options {
			for _, n := range o.Names {
				require.Contains(t, page, `\fB`+strings.ReplaceAll(n, "-", `\-`)+`\fR`)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "trace_reader.1")
	require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("SKIPPED: groff is not installed (make deps-cli): the manual page's syntax is not checked")
	}
	out, err := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, string(out))
	if _, err := exec.LookPath("mandoc"); err != nil {
		t.Skip("SKIPPED: mandoc is not installed (make deps-cli): the manual page is checked by groff only")
	}
	out, _ = exec.Command("mandoc", "-T", "lint", "-W", "warning", path).CombinedOutput()
	require.Empty(t, string(out))
}
