package capi

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// compileC builds a C99 program from src against the shared library, with
// the examples' warnings-as-errors flags, and returns its path.
func (tc *toolchain) compileC(t *testing.T, name, src string) string {
	t.Helper()
	return tc.program(t, "gcc", append(append([]string{}, cflags...), "-I"+tc.include), name+".c", src, "-lpthread")
}

// compileCxx builds a C++17 program from src against the shared library.
func (tc *toolchain) compileCxx(t *testing.T, name, src string, extra ...string) string {
	t.Helper()
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	return tc.program(t, "g++", append(append(append([]string{}, cxxflags...), extra...), "-I"+tc.include), name+".cpp", src)
}

// program writes src to a file of that name in a new directory, builds it
// with flags, links it against the shared library, and returns its path.
func (tc *toolchain) program(t *testing.T, compiler string, flags []string, file, src string, link ...string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, file)
	exe := strings.TrimSuffix(path, filepath.Ext(path))
	writeFile(t, path, src)
	link = append([]string{"-L" + tc.lib, "-Wl,-rpath," + tc.lib, "-lchronon"}, link...)
	out, how, err := ccBuild(t.Logf, dir, compiler, flags, path, exe, link...)
	if err != nil {
		t.Fatalf("compiling %s: %v\n%s", file, err, out)
	}
	t.Logf("%s %v: %s", file, flags, how)
	return exe
}

// ccBuild compiles src through the compile cache (`compiler flags -c`) and
// links the object into exe (`compiler flags -o exe exe.o link...`): the
// link, which reads libchronon, always runs. how is "cached" or the
// compile's seconds.
func ccBuild(logf func(string, ...any), dir, compiler string, flags []string, src, exe string, link ...string) (out []byte, how string, err error) {
	obj := exe + ".o"
	out, how, err = ccc.compile(logf, dir, compiler, append(append([]string{}, flags...), "-c"), src, obj)
	if err != nil {
		return out, how, err
	}
	lout, err := command(dir, nil, append(append(append([]string{compiler}, flags...), "-o", exe, obj), link...)...)
	return append(out, lout...), how, err
}

// runStdin runs a program with stdin and fails the test on a non-zero exit.
func runStdin(t *testing.T, stdin string, argv ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, tail(o.String()), tail(e.String()))
	}
	return o.String(), e.String()
}
