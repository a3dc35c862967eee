package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Repo is a git repository holding the module's source a command needs,
// committed: a build there records the commit as a release build from a
// clone does (the checkout the tests run in may be a git worktree, which
// the toolchain does not version).
type Repo struct {
	t      *testing.T
	dir    string // the repository
	pkg    string // the command, relative to dir
	Commit string
}

// NewRepo copies go.mod, go.sum and the non-test Go and assembly files of every package
// of the module the command in the current directory imports into a new
// repository, and commits them.
func NewRepo(t *testing.T) *Repo {
	t.Helper()
	mod := root(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	pkg, err := filepath.Rel(mod, wd)
	require.NoError(t, err)
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", ".").Output()
	require.NoError(t, err)
	r := &Repo{t: t, dir: t.TempDir(), pkg: pkg}
	files := []string{"go.mod", "go.sum"}
	for _, d := range strings.Fields(string(out)) {
		gos, err := filepath.Glob(filepath.Join(d, "*.go"))
		require.NoError(t, err)
		asm, err := filepath.Glob(filepath.Join(d, "*.s")) // internal/zrec's assembly
		require.NoError(t, err)
		for _, g := range append(gos, asm...) {
			if !strings.HasSuffix(g, "_test.go") {
				rel, err := filepath.Rel(mod, g)
				require.NoError(t, err)
				files = append(files, rel)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(mod, f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(r.dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(r.dir, f), b, 0o644))
	}
	r.git("init", "-q")
	r.git("add", ".")
	r.git("-c", "user.name=clitest", "-c", "user.email=clitest@example.com", "commit", "-q", "-m", "the command's source")
	r.Commit = strings.TrimSpace(r.git("rev-parse", "HEAD"))
	return r
}

func (r *Repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %q: %s", args, out)
	return string(out)
}

// Build builds the command with its VCS state recorded (without cgo: the
// commands that need it say so).
func (r *Repo) Build(name string) string {
	r.t.Helper()
	bin := filepath.Join(r.t.TempDir(), name)
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./"+filepath.ToSlash(r.pkg))
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "%s", out)
	return bin
}

// Touch adds a line to go.mod without committing it: the tree is dirty.
func (r *Repo) Touch() {
	r.t.Helper()
	f, err := os.OpenFile(filepath.Join(r.dir, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(r.t, err)
	_, err = f.WriteString("\n// changed\n")
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}
