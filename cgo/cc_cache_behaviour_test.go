package capi

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The compile cache's own tests, with a fake compiler written in Go: it
// "compiles" by hashing the source, its flags and every header it
// includes (looked up as gcc looks them up: the source's directory, each
// -I, then each -isystem, which stands for the system headers), writes
// that as the object and the -MD list, and fails on #error.

type fakeCC struct {
	t        *testing.T
	compiles int
}

func (f *fakeCC) exec(dir string, argv ...string) ([]byte, error) {
	switch {
	case len(argv) == 3 && argv[1] == "-dumpfullversion":
		return []byte("1.0\nfake\n"), nil
	case len(argv) == 2 && strings.HasPrefix(argv[1], "-print-prog-name="):
		return []byte(strings.TrimPrefix(argv[1], "-print-prog-name=") + "\n"), nil
	}
	f.compiles++
	var out, depfile string
	var flags, search []string
	src := argv[len(argv)-1]
	search = append(search, filepath.Dir(src))
	var system []string
	for i := 1; i < len(argv)-1; i++ {
		switch a := argv[i]; {
		case a == "-o":
			i++
			out = argv[i]
		case a == "-MF":
			i++
			depfile = argv[i]
		case a == "-MD":
		case a == "-isystem":
			i++
			system = append(system, argv[i])
			flags = append(flags, a, argv[i])
		case strings.HasPrefix(a, "-I"):
			search = append(search, a[2:])
			flags = append(flags, a)
		default:
			flags = append(flags, a)
		}
	}
	search = append(search, system...)
	text, err := os.ReadFile(src)
	if err != nil {
		return []byte(err.Error()), err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q\n%s", flags, text)
	deps := []string{src}
	var failed []byte
	for _, line := range strings.Split(string(text), "\n") {
		name, ok := strings.CutPrefix(line, "#include ")
		if !ok {
			if strings.HasPrefix(line, "#error") {
				failed = []byte(src + ":1: error: " + line)
			}
			continue
		}
		name = strings.Trim(name, `"<>`)
		found := false
		for _, d := range search {
			if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
				h.Write(b)
				deps = append(deps, filepath.Join(d, name))
				found = true
				break
			}
		}
		if !found {
			return []byte(src + ":1: fatal error: " + name + ": No such file or directory"), exec.Command("sh", "-c", "exit 1").Run()
		}
	}
	if depfile != "" { // gcc writes it also when the compile fails
		writeFile(f.t, depfile, "x.o: "+strings.Join(deps, " \\\n ")+"\n")
	}
	if failed != nil {
		return failed, exec.Command("sh", "-c", "exit 1").Run()
	}
	if out != "" {
		writeFile(f.t, out, fmt.Sprintf("object %x", h.Sum(nil)))
	}
	return []byte(src + ": warning: fake\n"), nil
}

// ccFixture: a cache, a fake compiler and a source including a header
// from an -I directory and one from the "system" directory.
type ccFixture struct {
	cc                  *ccCache
	fake                *fakeCC
	src, inc, sys, obj  string
	dir                 string
	logs                []string
	lastOutput, lastHow string
	lastErr             error
}

func newCCFixture(t *testing.T) *ccFixture {
	f := &ccFixture{fake: &fakeCC{t: t}, dir: t.TempDir()}
	f.cc = &ccCache{dir: t.TempDir(), exec: f.fake.exec, ids: map[string]string{}}
	f.src, f.inc, f.sys = filepath.Join(f.dir, "p.c"), t.TempDir(), t.TempDir()
	f.obj = filepath.Join(f.dir, "p.o")
	writeFile(t, f.src, "#include \"chronon.h\"\n#include <stdio.h>\nint main;\n")
	writeFile(t, filepath.Join(f.inc, "chronon.h"), "// the header\n")
	writeFile(t, filepath.Join(f.sys, "stdio.h"), "// libc\n")
	return f
}

func (f *ccFixture) compile(t *testing.T, extra ...string) string {
	t.Helper()
	flags := append([]string{"-O2", "-I" + f.inc, "-isystem", f.sys, "-c"}, extra...)
	logf := func(format string, args ...any) { f.logs = append(f.logs, fmt.Sprintf(format, args...)) }
	out, how, err := f.cc.compile(logf, f.dir, "fakecc", flags, f.src, f.obj)
	f.lastOutput, f.lastHow, f.lastErr = string(out), how, err
	return how
}

func (f *ccFixture) object(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(f.obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantMiss compiles and checks that the compiler ran and made a different
// object than before; wantHit that it did not and the object is the last.
func (f *ccFixture) wantMiss(t *testing.T, what string, extra ...string) {
	t.Helper()
	before, n := f.object(t), f.fake.compiles
	if how := f.compile(t, extra...); how == "cached" || f.fake.compiles != n+1 || f.lastErr != nil {
		t.Fatalf("%s: %s, %d compiles (want a miss), err %v, log %q", what, how, f.fake.compiles-n, f.lastErr, f.logs)
	}
	if f.object(t) == before {
		t.Fatalf("%s: the object did not change", what)
	}
}

func (f *ccFixture) wantHit(t *testing.T, what string, extra ...string) {
	t.Helper()
	before, n := f.object(t), f.fake.compiles
	os.Remove(f.obj)
	if how := f.compile(t, extra...); how != "cached" || f.fake.compiles != n || f.lastErr != nil {
		t.Fatalf("%s: %s, %d compiles (want a hit), err %v, log %q", what, how, f.fake.compiles-n, f.lastErr, f.logs)
	}
	if f.object(t) != before {
		t.Fatalf("%s: the cached object %q is not the compiled one %q", what, f.object(t), before)
	}
}

// TestCCCacheHit: identical inputs are a hit, also from another temporary
// directory, and the diagnostics come back naming the current one.
func TestCCCacheHit(t *testing.T) {
	f := newCCFixture(t)
	if how := f.compile(t); how == "cached" || f.fake.compiles != 1 {
		t.Fatalf("first compile: %s, %d compiles", how, f.fake.compiles)
	}
	f.wantHit(t, "the same compile again")
	if want := f.src + ": warning: fake\n"; f.lastOutput != want {
		t.Errorf("cached diagnostics %q, want %q", f.lastOutput, want)
	}
	// The same source in another test's directory.
	first := f.object(t)
	f.dir = t.TempDir()
	f.src, f.obj = filepath.Join(f.dir, "p.c"), filepath.Join(f.dir, "p.o")
	writeFile(t, f.src, "#include \"chronon.h\"\n#include <stdio.h>\nint main;\n")
	writeFile(t, f.obj, first)
	f.wantHit(t, "the same source in another temporary directory")
	if want := f.src + ": warning: fake\n"; f.lastOutput != want {
		t.Errorf("cached diagnostics %q, want %q (the current directory)", f.lastOutput, want)
	}
}

// TestCCCacheMissOnChange: any change to what the compile reads or is told
// is a miss: a header in an -I directory, a flag, a system header (known
// only from the compiler's -MD list), the source, a header appearing
// beside the source that shadows the -I one.
func TestCCCacheMissOnChange(t *testing.T) {
	f := newCCFixture(t)
	f.compile(t)
	f.wantHit(t, "unchanged")
	writeFile(t, filepath.Join(f.inc, "chronon.h"), "// the header, edited\n")
	f.wantMiss(t, "a header in the -I directory edited")
	f.wantHit(t, "unchanged since")
	f.wantMiss(t, "a flag added", "-DX=1")
	f.wantHit(t, "the flag again", "-DX=1")
	writeFile(t, filepath.Join(f.sys, "stdio.h"), "// libc, upgraded\n")
	f.wantMiss(t, "a system header edited")
	writeFile(t, f.src, "#include \"chronon.h\"\n#include <stdio.h>\nint main2;\n")
	f.wantMiss(t, "the source edited")
	writeFile(t, filepath.Join(f.dir, "chronon.h"), "// a copy beside the source\n")
	f.wantMiss(t, "a header beside the source shadowing the -I one")
	f.wantHit(t, "unchanged since")
}

// TestCCCacheCorruptEntry: an entry damaged on disk (a flipped byte, cut
// short, emptied) is detected by its checksum, logged, compiled again and
// rewritten.
func TestCCCacheCorruptEntry(t *testing.T) {
	for _, damage := range []struct {
		name string
		do   func([]byte) []byte
	}{
		{"a flipped byte", func(b []byte) []byte { b[len(b)-3] ^= 0x20; return b }},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func([]byte) []byte { return nil }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			f := newCCFixture(t)
			f.compile(t)
			entries, _ := filepath.Glob(filepath.Join(f.cc.dir, "*", "*"))
			if len(entries) != 1 {
				t.Fatalf("%d entries: %v", len(entries), entries)
			}
			b, err := os.ReadFile(entries[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(entries[0], damage.do(b), 0o644); err != nil {
				t.Fatal(err)
			}
			n := f.fake.compiles
			os.Remove(f.obj)
			if how := f.compile(t); how == "cached" || f.fake.compiles != n+1 || f.lastErr != nil {
				t.Fatalf("damaged entry: %s, %d compiles, err %v", how, f.fake.compiles-n, f.lastErr)
			}
			if len(f.logs) != 1 || !strings.Contains(f.logs[0], "corrupt entry") {
				t.Errorf("log %q: want one line saying the entry is corrupt", f.logs)
			}
			f.wantHit(t, "the entry rewritten")
		})
	}
}

// TestCCCacheFailures: a compile error is kept (the tests that check what
// must not compile ask again and again) and comes back as an error with
// its diagnostics; a missing header is not kept, since it may appear (gcc
// writes no -MD list then, and the cache keeps no "fatal error" either).
func TestCCCacheFailures(t *testing.T) {
	f := newCCFixture(t)
	writeFile(t, f.src, "#include \"chronon.h\"\n#error no\n")
	for i, want := range []string{"ran", "cached"} {
		how := f.compile(t)
		if f.lastErr == nil || !strings.Contains(f.lastOutput, f.src+":1: error: #error no") || (how == "cached") != (want == "cached") {
			t.Fatalf("failing compile %d: %s, err %v, output %q (want %s)", i, how, f.lastErr, f.lastOutput, want)
		}
	}
	writeFile(t, f.src, "#include \"chronon.h\"\n#include <later.h>\n")
	for i := range 2 {
		if how := f.compile(t); how == "cached" || f.lastErr == nil {
			t.Fatalf("missing header, compile %d: %s, err %v", i, how, f.lastErr)
		}
	}
	writeFile(t, filepath.Join(f.sys, "later.h"), "// installed now\n") // in no key: only not keeping the failure finds it
	if how := f.compile(t); how == "cached" || f.lastErr != nil {
		t.Fatalf("the header now there: %s, err %v: %s", how, f.lastErr, f.lastOutput)
	}
}

// TestCCCacheUnusable: a cache that cannot be written is no failure: the
// compile runs and the trouble is logged.
func TestCCCacheUnusable(t *testing.T) {
	f := newCCFixture(t)
	f.cc.dir = filepath.Join(f.dir, "p.c", "cache") // under a file: nothing can be made there
	for range 2 {
		if how := f.compile(t); how == "cached" || f.lastErr != nil {
			t.Fatalf("%s, err %v", how, f.lastErr)
		}
	}
	if f.fake.compiles != 2 || !strings.Contains(strings.Join(f.logs, "\n"), "not stored") {
		t.Errorf("%d compiles, log %q", f.fake.compiles, f.logs)
	}
	if !strings.HasPrefix(f.object(t), "object ") {
		t.Errorf("object %q", f.object(t))
	}
}

// TestCCCachePrune: a run removes the entries unused for ccMaxAge (and
// temporary files a killed run left), once; a hit counts as a use.
func TestCCCachePrune(t *testing.T) {
	f := newCCFixture(t)
	f.compile(t)
	a, _ := filepath.Glob(filepath.Join(f.cc.dir, "*", "*"))
	if len(a) != 1 {
		t.Fatalf("entries %v", a)
	}
	leftover := filepath.Join(filepath.Dir(a[0]), ".tmp-1")
	writeFile(t, leftover, "half")
	long := time.Now().Add(-ccMaxAge - time.Hour)
	age := func(paths ...string) {
		for _, p := range paths {
			if err := os.Chtimes(p, long, long); err != nil {
				t.Fatal(err)
			}
		}
	}
	age(a[0], leftover)
	f.compile(t, "-DB")       // entry b; this run pruned before there was anything old
	f.cc.pruned = sync.Once{} // the next run
	f.wantHit(t, "b", "-DB")
	for _, p := range []string{a[0], leftover} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s unused for longer than %v is still there", p, ccMaxAge)
		}
	}
	b, _ := filepath.Glob(filepath.Join(f.cc.dir, "*", "*"))
	if len(b) != 1 {
		t.Fatalf("entries %v, want b only", b)
	}
	age(b[0])
	f.wantHit(t, "b, old, used in a run that has pruned", "-DB")
	f.cc.pruned = sync.Once{}
	f.wantHit(t, "b after the next run's prune", "-DB")
}

// TestCCCacheGCC: with the real compiler, a source and a header compile
// once; the second time the object comes from the cache, byte for byte
// what gcc wrote; an edited header compiles again. The -MD list names the
// system headers (stdio.h).
func TestCCCacheGCC(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("##### SKIPPING THE C/C++ API TESTS: gcc is not installed #####")
	}
	cc := newCCCache()
	cc.dir = t.TempDir()
	dir, inc := t.TempDir(), t.TempDir()
	src, obj := filepath.Join(dir, "g.c"), filepath.Join(dir, "g.o")
	writeFile(t, src, "#include <stdio.h>\n#include \"g.h\"\nint main(void) { printf(\"%d\\n\", G); return 0; }\n")
	writeFile(t, filepath.Join(inc, "g.h"), "#define G 1\n")
	flags := []string{"-std=c99", "-O2", "-g", "-Wall", "-I" + inc, "-c"}
	var hows []string
	objects := map[string]string{}
	for i, h := range []string{"1", "1", "2", "2"} {
		writeFile(t, filepath.Join(inc, "g.h"), "#define G "+h+"\n")
		out, how, err := cc.compile(t.Logf, dir, "gcc", flags, src, obj)
		if err != nil {
			t.Fatalf("compile %d: %v\n%s", i, err, out)
		}
		b, err := os.ReadFile(obj)
		if err != nil {
			t.Fatal(err)
		}
		if how != "cached" {
			objects[h] = string(b)
		} else if objects[h] != string(b) {
			t.Errorf("compile %d: the cached object is not the one gcc wrote", i)
		}
		hows = append(hows, map[bool]string{true: "cached", false: "ran"}[how == "cached"])
	}
	if got := strings.Join(hows, " "); got != "ran cached ran cached" {
		t.Errorf("compiles: %s, want ran cached ran cached", got)
	}
	if objects["1"] == objects["2"] {
		t.Error("G=1 and G=2 made the same object")
	}
	entries, _ := filepath.Glob(filepath.Join(cc.dir, "*", "*"))
	found := false
	for _, p := range entries {
		if e, err := cc.load(p, []string{dir}); err == nil {
			for _, d := range e.Deps {
				found = found || strings.HasSuffix(d.Path, "/stdio.h")
			}
		}
	}
	if !found || len(entries) != 2 {
		t.Errorf("%d entries; stdio.h among the system headers of one: %v", len(entries), found)
	}
}

// TestCCCachePruneKeepsOthersFiles: the prune removes only what the cache
// wrote. $CHRONON_CC_CACHE set to a directory that holds other files (the
// home directory, ~/.cache) or to a file must not lose those files,
// however old: the prune removed every file unused for ccMaxAge under it.
func TestCCCachePruneKeepsOthersFiles(t *testing.T) {
	f := newCCFixture(t)
	others := []string{
		filepath.Join(f.cc.dir, "notes.txt"),
		filepath.Join(f.cc.dir, "ab", "photo.jpg"),
		filepath.Join(f.cc.dir, "project", "src", "main.c"),
		filepath.Join(f.cc.dir, "ab", strings.Repeat("ab", 32)+".bak"),
	}
	long := time.Now().Add(-ccMaxAge - time.Hour)
	for _, p := range others {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, "not the cache's")
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	f.compile(t) // prunes, then stores an entry
	for _, p := range others {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the prune removed %s, not a file of the cache: %v", p, err)
		}
	}
	f.wantHit(t, "the entry beside the others")

	// The cache "directory" a file: it stays (it was removed, and the
	// entry's store made a directory in its place).
	file := filepath.Join(t.TempDir(), "cache-file")
	writeFile(t, file, "a file")
	if err := os.Chtimes(file, long, long); err != nil {
		t.Fatal(err)
	}
	g := newCCFixture(t)
	g.cc.dir = file
	g.compile(t)
	if b, err := os.ReadFile(file); string(b) != "a file" || g.lastErr != nil {
		t.Errorf("a cache directory that is a file: now %q, %v (compile: %v)", b, err, g.lastErr)
	}
}
