package capi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests build libchronon and the C/C++ programs once, into a temporary
// directory (never into the source tree), and run them.

var update = flag.Bool("update", false, "rewrite the golden dumps in examples/testdata")

var tmpRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "chronon-capi-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	ccc.tmp = []string{dir}
	// The clone's own directory is a placeholder too: CI makes a new clone
	// (at a new path) for every run, and a key or object naming it would
	// never be found again.
	if root, err := filepath.Abs(".."); err == nil && !under(dir, root) && !under(root, dir) {
		ccc.tmp = append(ccc.tmp, root)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// toolchain is what build produced.
type toolchain struct {
	root     string            // repository root
	dir      string            // everything built goes here
	include  string            // cgo/include
	lib      string            // directory of libchronon.so
	archive  string            // libchronon.a
	bin      map[string]string // program -> path
	cxx      bool              // g++ found: the C++ programs exist
	tracegen string
	reader   string // bin/trace_reader, "" if cmd/trace_reader does not build (work in progress elsewhere)
	oracle   string // ctrace_oracle.py, "" if it or python3-zstandard is missing
	why      []string
}

var built struct {
	once    sync.Once
	logOnce sync.Once
	tc      *toolchain
	err     error
}

// setup builds everything on first use. Without gcc the C API cannot be
// built at all: the tests skip, loudly.
func setup(t *testing.T) *toolchain {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("##### SKIPPING THE C/C++ API TESTS: gcc is not installed; cgo/ needs gcc (and g++ for C++) #####")
	}
	built.once.Do(func() { built.tc, built.err = build() })
	if built.err != nil {
		t.Fatalf("building the C API: %v", built.err)
	}
	built.logOnce.Do(func() {
		for _, w := range built.tc.why {
			t.Log(w)
		}
	})
	return built.tc
}

const python = "/usr/bin/python3"

// cflags are the flags of every example: gnu99 is C99 plus the POSIX
// declarations the programs use (popen, strnlen); -Werror keeps the header
// warning-free under -Wall -Wextra.
var cflags = []string{"-std=gnu99", "-O2", "-g", "-Wall", "-Wextra", "-Werror"}
var cxxflags = []string{"-std=c++17", "-O2", "-g", "-Wall", "-Wextra", "-Werror"}

func build() (*toolchain, error) {
	start := time.Now()
	root, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	tc := &toolchain{root: root, dir: tmpRoot, include: filepath.Join(root, "cgo", "include"),
		lib: filepath.Join(tmpRoot, "lib"), bin: map[string]string{}}
	tc.archive = filepath.Join(tc.lib, "libchronon.a")
	bin := filepath.Join(tmpRoot, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	gocmd := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		gocmd = "go"
	}
	// timed runs a build step and notes how long it took (the log says
	// where the package's setup time goes).
	var steps []string
	timed := func(env []string, argv ...string) ([]byte, error) {
		t0 := time.Now()
		out, err := command(root, env, argv...)
		what := argv[len(argv)-1]
		if i := slices.Index(argv, "-o"); i >= 0 && i+1 < len(argv) {
			what = argv[i+1]
		}
		steps = append(steps, fmt.Sprintf("%s %.1fs", filepath.Base(what), time.Since(t0).Seconds()))
		return out, err
	}
	libEnv, err := libchrononEnv(gocmd, tc.include, "")
	if err != nil {
		return nil, err
	}
	for _, s := range [][]string{
		{gocmd, "build", "-buildmode=c-shared", "-o", filepath.Join(tc.lib, "libchronon.so"), "./cgo/lib"},
		{gocmd, "build", "-buildmode=c-archive", "-o", tc.archive, "./cgo/lib"},
	} {
		if out, err := timed(libEnv, s...); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
	// The commands: make test builds them before its test stages
	// (CHRONON_TEST_BIN names that directory), so the tests need not link
	// trace_reader, DuckDB and all, a second time; run alone, they build
	// their own.
	prebuilt := os.Getenv("CHRONON_TEST_BIN")
	tool := func(name string) (string, error) {
		if prebuilt != "" {
			p := filepath.Join(prebuilt, name)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("CHRONON_TEST_BIN=%s: %w", prebuilt, err)
			}
			return p, nil
		}
		p := filepath.Join(bin, name)
		if out, err := timed(nil, gocmd, "build", "-o", p, "./cmd/"+name); err != nil {
			return "", fmt.Errorf("go build ./cmd/%s: %v: %s", name, err, firstLine(out))
		}
		return p, nil
	}
	if tc.tracegen, err = tool("tracegen"); err != nil {
		return nil, err
	}
	if tc.reader, err = tool("trace_reader"); err != nil {
		tc.reader = ""
		tc.why = append(tc.why, "##### cmd/trace_reader does not build (work in progress?): dumps are checked with the oracle only: "+err.Error())
	}
	oracle := filepath.Join(root, "..", "shared", "conformance", "ctrace_oracle.py")
	if s := os.Getenv("SHARED"); s != "" {
		oracle = filepath.Join(s, "conformance", "ctrace_oracle.py")
	}
	if _, err := os.Stat(oracle); err != nil {
		tc.why = append(tc.why, "##### ORACLE CHECKS SKIPPED: "+oracle+" is missing #####")
	} else if out, err := command(root, nil, python, "-c", "import zstandard"); err != nil {
		tc.why = append(tc.why, "##### ORACLE CHECKS SKIPPED: python3-zstandard is missing (make deps): "+firstLine(out))
	} else {
		tc.oracle = oracle
	}

	ex := filepath.Join(root, "cgo", "examples")
	cflags := append(append([]string{}, cflags...), "-I"+tc.include)
	shared := []string{"-L" + tc.lib, "-Wl,-rpath," + tc.lib, "-lchronon", "-lpthread"}
	cprogs := map[string]string{"example_sim": "example_sim.c", "w1gen": "w1gen.c", "threads": "threads.c",
		"misuse": "misuse.c", "cbench": "cbench.c"}
	// Each program compiled through the compile cache, then linked.
	logf := func(format string, args ...any) { tc.why = append(tc.why, fmt.Sprintf(format, args...)) }
	cbuild := func(compiler string, flags []string, name, src string, link ...string) error {
		out, how, err := ccBuild(logf, root, compiler, flags, filepath.Join(ex, src), filepath.Join(bin, name), link...)
		steps = append(steps, name+" "+how)
		if err != nil {
			return fmt.Errorf("compiling %s: %v\n%s", src, err, out)
		}
		tc.bin[name] = filepath.Join(bin, name)
		return nil
	}
	for name, src := range cprogs {
		if err := cbuild("gcc", cflags, name, src, shared...); err != nil {
			return nil, err
		}
	}
	// static_init must be linked with the archive: its point is a
	// constructor that runs before the Go runtime's.
	if err := cbuild("gcc", cflags, "static_init", "static_init.c", tc.archive, "-lpthread"); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("g++"); err != nil {
		tc.why = append(tc.why, "##### g++ is not installed: THE C++ TESTS ARE SKIPPED #####")
	} else {
		tc.cxx = true
		// Compiled once, linked twice (against the shared library and the
		// archive): the compile is most of the cost.
		obj := filepath.Join(bin, "example_sim_cpp.o")
		out, how, err := ccc.compile(logf, root, "g++", append(append([]string{}, cxxflags...), "-I"+tc.include, "-c"),
			filepath.Join(ex, "example_sim.cpp"), obj)
		steps = append(steps, "example_sim_cpp.o "+how)
		if err != nil {
			return nil, fmt.Errorf("compiling example_sim.cpp: %v\n%s", err, out)
		}
		for name, link := range map[string][]string{
			"example_sim_cpp":        {"-L" + tc.lib, "-Wl,-rpath," + tc.lib, "-lchronon"},
			"example_sim_cpp_static": {tc.archive, "-lpthread"},
		} {
			args := append([]string{"g++", "-o", filepath.Join(bin, name), obj}, link...)
			if out, err := command(root, nil, args...); err != nil {
				return nil, fmt.Errorf("linking example_sim.cpp (%s): %v\n%s", name, err, out)
			}
			tc.bin[name] = filepath.Join(bin, name)
		}
	}
	tc.why = append(tc.why, fmt.Sprintf("built libchronon and the C/C++ programs in %.1fs (%s)", time.Since(start).Seconds(), strings.Join(steps, ", ")))
	return tc, nil
}

// libchrononEnv is the environment of a build of libchronon: CGO_CFLAGS
// (cflags, else go env's) with a -D naming the sha256 of the headers in
// include. Go's build cache keys a cgo package by the files in its own
// directory, not by headers it includes from elsewhere (golang/go#24355):
// without it, a build after an edit of chronon.h links the package
// compiled from the old one.
func libchrononEnv(gocmd, include, cflags string) ([]string, error) {
	if cflags == "" {
		out, err := command(".", nil, gocmd, "env", "CGO_CFLAGS")
		if err != nil {
			return nil, fmt.Errorf("go env CGO_CFLAGS: %v: %s", err, out)
		}
		cflags = strings.TrimSpace(string(out))
	}
	h := sha256.New()
	files, err := filepath.Glob(filepath.Join(include, "*"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s %d\n%s", filepath.Base(f), len(b), b)
	}
	return []string{fmt.Sprintf("CGO_CFLAGS=%s -DCHRONON_INCLUDE_SHA256=%x", cflags, h.Sum(nil))}, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// command runs argv in dir with extra environment and returns its combined output.
func command(dir string, env []string, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

// run runs a program and returns its stdout and stderr; it fails the test
// on a non-zero exit.
func run(t *testing.T, env []string, argv ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := runErr(t, env, argv...)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, tail(stdout), tail(stderr))
	}
	return stdout, stderr
}

func runErr(t *testing.T, env []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runErrWithin(t, 5*time.Minute, env, argv...)
}

// runErrWithin is runErr with a time limit, after which the program is killed.
func runErrWithin(t *testing.T, limit time.Duration, env []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// oracleCheck runs `ctrace_oracle.py check` and returns its "OK ..." line.
func (tc *toolchain) oracleCheck(t *testing.T, path string) string {
	t.Helper()
	if tc.oracle == "" {
		return ""
	}
	out, _ := run(t, nil, python, tc.oracle, "check", path)
	if !strings.HasPrefix(out, "OK ") {
		t.Fatalf("oracle: %s: %s", path, out)
	}
	return strings.TrimSpace(out)
}

// dump returns the file's events as text lines, sorted (trace_reader
// prints in cycle order, the oracle in file order): trace_reader's when it
// builds, checked against the oracle's.
func (tc *toolchain) dump(t *testing.T, path string) []string {
	t.Helper()
	var reader, oracle []string
	if tc.reader != "" {
		out, _ := run(t, nil, tc.reader, "dump", path)
		reader = sortedLines(out)
	}
	if tc.oracle != "" {
		out, _ := run(t, nil, python, tc.oracle, "dump", path)
		oracle = sortedLines(out)
	}
	switch {
	case reader != nil && oracle != nil:
		if d := firstDiff(reader, oracle); d != "" {
			t.Fatalf("%s: trace_reader dump and the oracle's dump differ: %s", path, d)
		}
		return reader
	case reader != nil:
		return reader
	case oracle != nil:
		return oracle
	}
	t.Skip("##### neither trace_reader nor the oracle is available: dumps cannot be checked #####")
	return nil
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	sort.Strings(lines)
	return lines
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d lines vs %d", len(a), len(b))
	}
	return ""
}

// golden compares lines with examples/testdata/name (-update rewrites it).
func (tc *toolchain) golden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join(tc.root, "cgo", "examples", "testdata", name)
	text := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cgo -run %s -update to create it)", err, t.Name())
	}
	if d := firstDiff(lines, sortedLines(string(want))); d != "" {
		t.Fatalf("dump differs from %s: %s", path, d)
	}
}

// TestLibchrononEnvNamesTheHeaders: a byte changed in a header changes
// the CGO_CFLAGS of libchronon's build (so Go's build cache compiles the
// package again); the same headers give the same flags, keeping the
// ones asked for.
func TestLibchrononEnvNamesTheHeaders(t *testing.T) {
	inc := t.TempDir()
	writeFile(t, filepath.Join(inc, "chronon.h"), "#define CHRONON_X 1\n")
	env := func() string {
		t.Helper()
		e, err := libchrononEnv("go", inc, "-O2 -g")
		if err != nil || len(e) != 1 || !strings.HasPrefix(e[0], "CGO_CFLAGS=-O2 -g -DCHRONON_INCLUDE_SHA256=") {
			t.Fatalf("%q, %v", e, err)
		}
		return e[0]
	}
	a := env()
	if b := env(); b != a {
		t.Errorf("the same headers: %s, then %s", a, b)
	}
	writeFile(t, filepath.Join(inc, "chronon.h"), "#define CHRONON_X 2\n")
	if b := env(); b == a {
		t.Errorf("an edited header left CGO_CFLAGS %s", b)
	}
}
