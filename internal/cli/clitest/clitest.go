// Package clitest checks the conventions internal/cli gives every tool:
// on the built binary, --version against what the toolchain recorded in it
// and the Markdown reference against docs/cli.md; the completion scripts
// by completing command lines as bash, zsh and fish do on Tab.
package clitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

// Build builds the command in the current directory into a temporary
// directory and returns the binary. The toolchain records the VCS state
// when the source is in a checkout it recognizes (not a git worktree).
func Build(t *testing.T, name string, env ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// Output runs bin with args and returns its standard output, requiring
// status 0 and nothing on standard error.
func Output(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s %q: %s", bin, args, stderr.String())
	require.Empty(t, stderr.String(), "%s %q", bin, args)
	return stdout.String()
}

// recorded is what `go version -m` reads from a binary.
type recorded struct {
	goVersion, module, version string
	settings                   map[string]string
}

func readRecorded(t *testing.T, bin string) recorded {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	r := recorded{settings: map[string]string{}}
	for i, line := range strings.Split(string(out), "\n") {
		f := strings.Split(strings.TrimSpace(line), "\t")
		switch {
		case i == 0:
			_, r.goVersion, _ = strings.Cut(line, ": ")
		case f[0] == "mod" && len(f) >= 3:
			r.module, r.version = f[1], f[2]
		case f[0] == "build" && len(f) >= 2:
			k, v, _ := strings.Cut(f[1], "=")
			r.settings[k] = v
		}
	}
	return r
}

// CheckVersion runs `bin --version` and `bin version`: the same text,
// naming the tool, the module and its version, the commit, its time and
// whether the tree was dirty as `go version -m` reads them from the
// binary, and the Go version. It returns the text.
func CheckVersion(t *testing.T, bin, name string) string {
	t.Helper()
	got := Output(t, bin, "--version")
	require.Equal(t, got, Output(t, bin, "version"), "--version and version")
	r := readRecorded(t, bin)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.Len(t, lines, 4, "%q", got)
	require.Equal(t, name+" "+r.version, lines[0])
	require.Equal(t, "module github.com/chronon-sim/chronon-go", lines[1])
	require.Equal(t, "module "+r.module, lines[1])
	if rev := r.settings["vcs.revision"]; rev != "" {
		want := "commit " + rev + " (" + r.settings["vcs.time"] + ")"
		if r.settings["vcs.modified"] == "true" {
			want += ", dirty (uncommitted changes)"
		}
		require.Equal(t, want, lines[2])
	} else {
		require.Equal(t, "commit unknown (built without version control information)", lines[2])
	}
	require.Equal(t, r.goVersion+" "+runtime.GOOS+"/"+runtime.GOARCH, lines[3])
	return got
}

// root is the module's directory.
func root(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err)
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// CheckDocs requires docs/cli.md to hold, between tool's markers, what
// `bin --help-markdown` prints now: the reference is the tables' (make
// docs rewrites it).
func CheckDocs(t *testing.T, bin, tool string) {
	t.Helper()
	want := Output(t, bin, "--help-markdown")
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "cli.md"))
	require.NoError(t, err)
	doc := string(b)
	i, j := strings.Index(doc, cli.DocBegin(tool)), strings.Index(doc, cli.DocEnd(tool))
	require.True(t, i >= 0 && j > i, "docs/cli.md has no part for %s between its markers: run make docs", tool)
	if got := doc[i+len(cli.DocBegin(tool)) : j]; got != want {
		t.Fatalf("docs/cli.md's part for %s is stale (it differs from %s --help-markdown at byte %d): run make docs",
			tool, tool, firstDiff(got, want))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
