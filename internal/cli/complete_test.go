package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/cli"
	"github.com/chronon-sim/chronon-go/internal/cli/clitest"
)

// tool has commands, option values of every kind and help text with what
// the shells would read as syntax (brackets, quotes, backslashes).
var tool = &cli.Tool{
	Name:    "sample-tool",
	Options: []*cli.Option{{Names: []string{"-h", "--help"}, Help: "Show help"}, {Names: []string{"--version"}, Help: "Show the version"}},
	Commands: []*cli.Command{
		{Name: "info", Summary: "Show [information]: it's 'quoted'.", Operands: cli.Complete{Files: "*.ctrace"},
			Options: []*cli.Option{
				{Names: []string{"--unit"}, Arg: "NAME", Help: "Units named [x] or it's \\ escaped"},
				{Names: []string{"-o", "--output"}, Arg: "FILE", Help: "Write to FILE", Complete: cli.Complete{Files: "*"}},
				{Names: []string{"--format"}, Arg: "F", Help: "perfetto or kanata", Complete: cli.Complete{Words: []string{"perfetto", "kanata"}}},
				{Names: []string{"-v", "--verbose"}, Help: "More"},
			}},
		{Name: "export", Summary: "Export.", Operands: cli.Complete{Files: "*.ctrace"},
			Options: []*cli.Option{{Names: []string{"--dir"}, Arg: "DIR", Help: "Where", Complete: cli.Complete{Dirs: true}}}},
		{Name: "completion", Summary: "Print a completion script.", Operands: cli.Complete{Words: cli.Shells}},
	},
}

func script(t *testing.T, shell string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, cli.WriteCompletion(&b, tool, shell))
	return clitest.Script(t, b.Bytes(), shell)
}

// files makes a directory with a trace, another file and a subdirectory.
func files(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"a.ctrace", "b.txt", "sub/c.ctrace"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	return dir
}

func TestBashCompletion(t *testing.T) {
	s := script(t, "bash")
	out, err := exec.Command("bash", "--norc", "-c", `source "$1" && complete -p sample-tool`, "bash", s).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "complete -o filenames -F _sample_tool sample-tool\n", string(out))
	dir := files(t)
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"sample-tool", "in"}, []string{"info"}},
		{[]string{"sample-tool", ""}, []string{"--help", "--version", "-h", "completion", "export", "info"}},
		{[]string{"sample-tool", "--v"}, []string{"--version"}},
		{[]string{"sample-tool", "info", "--"}, []string{"--format", "--output", "--unit", "--verbose"}},
		{[]string{"sample-tool", "info", "--format", ""}, []string{"kanata", "perfetto"}},
		{[]string{"sample-tool", "info", "--format", "=", "k"}, []string{"kanata"}},
		{[]string{"sample-tool", "info", "--format", "="}, []string{"kanata", "perfetto"}},
		{[]string{"sample-tool", "info", "--unit", ""}, nil},
		{[]string{"sample-tool", "info", ""}, []string{"a.ctrace", "sub"}},
		{[]string{"sample-tool", "info", "-o", ""}, []string{"a.ctrace", "b.txt", "sub"}},
		{[]string{"sample-tool", "info", "--", "-"}, nil},
		{[]string{"sample-tool", "export", "--dir", ""}, []string{"sub"}},
		{[]string{"sample-tool", "completion", ""}, []string{"bash", "fish", "zsh"}},
	} {
		require.Equal(t, c.want, clitest.BashComplete(t, s, "_sample_tool", dir, c.words...), "%q", c.words)
	}
}

func TestZshCompletion(t *testing.T) {
	s := script(t, "zsh")
	dir := files(t)
	for _, c := range []struct {
		line string
		want []string
	}{
		{"sample-tool in", []string{"info"}},
		{"sample-tool info --for", []string{"--format"}},
		{"sample-tool info --format ", []string{"kanata", "perfetto"}},
		{"sample-tool info --format=k", []string{"kanata"}},
		{"sample-tool info a", []string{"a.ctrace"}},
		{"sample-tool completion ", []string{"bash", "fish", "zsh"}},
	} {
		require.Equal(t, c.want, clitest.ZshComplete(t, s, dir, c.line), "%q", c.line)
	}
}

func TestFishCompletion(t *testing.T) {
	s := script(t, "fish")
	dir := files(t)
	for _, c := range []struct {
		line string
		want []string
	}{
		{"sample-tool in", []string{"info"}},
		{"sample-tool info --for", []string{"--format"}},
		{"sample-tool info --format ", []string{"kanata", "perfetto"}},
		{"sample-tool info ", []string{"a.ctrace", "sub/"}},
		{"sample-tool completion ", []string{"bash", "fish", "zsh"}},
	} {
		require.Equal(t, c.want, clitest.FishComplete(t, s, dir, c.line), "%q", c.line)
	}
}
