package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sample is a tool with commands, options of every kind and text that
// needs escaping in every output (a leading '.', backslashes, brackets,
// quotes, <angle> words, | and *).
var sample = &Tool{
	Name:        "sample-tool",
	Summary:     "reads <file.ctrace> files",
	Description: "First paragraph: a*b and c_d, <label>/<unit>.\n.starts with a dot\n\nSecond 'quoted' \\ paragraph | pipe.",
	Options:     []*Option{{Names: []string{"-h", "--help"}, Help: "Show help"}, {Names: []string{"--version"}, Help: "Show the version"}},
	Commands: []*Command{
		{Name: "info", Synopsis: "[options] <file.ctrace>...", Summary: "Show information.\nMore: [brackets] and 'quotes'.",
			Options: []*Option{
				{Names: []string{"--unit"}, Arg: "NAME", Help: "Units named [x] or it's \\ escaped"},
				{Names: []string{"-o", "--output"}, Arg: "FILE", Help: "Write to FILE", Complete: Complete{Files: "*"}},
				{Names: []string{"--format"}, Arg: "F", Help: "perfetto or kanata", Complete: Complete{Words: []string{"perfetto", "kanata"}}},
				{Names: []string{"-v", "--verbose"}, Help: "More"},
			},
			Operands: Complete{Files: "*.ctrace"}},
		{Name: "export", Synopsis: "-o DIR <file.ctrace>", Summary: "Export.",
			Options:  []*Option{{Names: []string{"--dir"}, Arg: "DIR", Help: "Where", Complete: Complete{Dirs: true}}},
			Operands: Complete{Files: "*.ctrace"}},
		{Name: "completion", Synopsis: "bash|zsh|fish", Summary: "Print a completion script.", Operands: Complete{Words: Shells},
			Notes: "  table   columns\n.dot line \\ backslash"},
	},
	Exit: "Exit status: 0 ok, 2 usage.",
}

func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/m", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-03-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}}}
	require.Equal(t, "tool v1.2.3\nmodule example.com/m\ncommit abc123 (2026-03-01T10:00:00Z), dirty (uncommitted changes)\ngo1.26.8 linux/arm64\n", Version("tool", bi))
	bi.Settings = bi.Settings[3:]
	bi.Main.Version = "(devel)"
	require.Equal(t, "tool (devel)\nmodule example.com/m\ncommit unknown (built without version control information)\ngo1.26.8 linux/arm64\n", Version("tool", bi))
	bi.Main.Version = ""
	require.Contains(t, Version("tool", bi), "tool (devel)\n")
	require.Equal(t, "tool (unknown version: built without module information)\n", Version("tool", nil))
}

// The manual page is valid man(7): groff and mandoc read it without a
// warning, and it renders the commands, options and escaped text.
func TestManPage(t *testing.T) {
	var b bytes.Buffer
	WriteMan(&b, sample, "chronon-go (devel)", "2026-03-01")
	page := filepath.Join(t.TempDir(), "sample-tool.1")
	require.NoError(t, os.WriteFile(page, b.Bytes(), 0o644))
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("SKIPPED: groff is not installed (apt-get install groff-base): the manual page is not checked")
	}
	out, err := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z", page).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, string(out), "groff warnings")
	text, err := exec.Command("groff", "-man", "-Tascii", "-P-cbou", page).Output()
	require.NoError(t, err)
	s := strings.Join(strings.Fields(string(text)), " ")
	for _, want := range []string{"sample-tool - reads <file.ctrace> files", "sample-tool info [options] <file.ctrace>...",
		".starts with a dot", `Second 'quoted' \ paragraph | pipe.`, "-o, --output FILE Write to FILE", `Units named [x] or it's \ escaped`,
		"EXIT STATUS Exit status: 0 ok, 2 usage.", `table columns .dot line \ backslash`, "Instead of a command: -h, --help Show help"} {
		require.Contains(t, s, want)
	}
	if _, err := exec.LookPath("mandoc"); err != nil {
		t.Skip("SKIPPED: mandoc is not installed (apt-get install mandoc): the page is checked by groff only")
	}
	out, _ = exec.Command("mandoc", "-T", "lint", "-W", "warning", page).CombinedOutput()
	require.Empty(t, string(out), "mandoc lint")
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	WriteMarkdown(&b, sample)
	md := b.String()
	for _, want := range []string{
		"## sample-tool\n\nsample-tool: reads \\<file.ctrace\\> files.\n\n",
		"Instead of a command:\n\n| Option | |\n|---|---|\n| `-h, --help` | Show help |\n",
		"First paragraph: a\\*b and c\\_d, \\<label\\>/\\<unit\\>. .starts with a dot\n\n",
		"### sample-tool info\n\n```\nsample-tool info [options] <file.ctrace>...\n```\n\n",
		"| `-o, --output FILE` | Write to FILE |\n",
		"| `--unit NAME` | Units named \\[x\\] or it's \\\\ escaped |\n",
		"### Exit status\n\nExit status: 0 ok, 2 usage.\n",
		"```\n  table   columns\n.dot line \\ backslash\n```\n",
	} {
		require.Contains(t, md, want)
	}
}
