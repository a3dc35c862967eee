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
	dir := t.TempDir()
	file, exe := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	writeFile(t, file, src)
	args := append(append([]string{"gcc"}, cflags...), "-I"+tc.include, "-L"+tc.lib, "-Wl,-rpath,"+tc.lib, "-o", exe, file,
		"-lchronon", "-lpthread")
	if out, err := command(dir, nil, args...); err != nil {
		t.Fatalf("compiling %s: %v\n%s", name, err, out)
	}
	return exe
}

// compileCxx builds a C++17 program from src against the shared library.
func (tc *toolchain) compileCxx(t *testing.T, name, src string, extra ...string) string {
	t.Helper()
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	dir := t.TempDir()
	file, exe := filepath.Join(dir, name+".cpp"), filepath.Join(dir, name)
	writeFile(t, file, src)
	args := append(append(append([]string{"g++"}, cxxflags...), extra...), "-I"+tc.include, "-L"+tc.lib, "-Wl,-rpath,"+tc.lib,
		"-o", exe, file, "-lchronon")
	if out, err := command(dir, nil, args...); err != nil {
		t.Fatalf("compiling %s: %v\n%s", name, err, out)
	}
	return exe
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
