package capi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chronon-sim/chronon-go/schema"
)

// TestHeaders compiles the headers alone in every language mode they
// claim, warnings as errors, and checks that C++ argument mismatches do not
// compile at all.
func TestHeaders(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	csrc := filepath.Join(dir, "h.c")
	// Instantiates every typed emitter arity and the inline functions.
	writeFile(t, csrc, `#include "chronon.h"
CHRONON_DEFINE_EMIT0(e0)
CHRONON_DEFINE_EMIT1(e1, u64)
CHRONON_DEFINE_EMIT2(e2, i8, bool)
CHRONON_DEFINE_EMIT3(e3, u32, u8, i16)
CHRONON_DEFINE_EMIT4(e4, f32, f64, ptr, u16)
CHRONON_DEFINE_EMIT5(e5, i32, i64, u8, u16, u32)
CHRONON_DEFINE_EMIT6(e6, u64, u64, u64, u64, u64, bool)
int use(chronon_unit *u, const chronon_format *f);
int use(chronon_unit *u, const chronon_format *f) {
	chronon_writer w;
	chronon_arg a[1];
	int s = e0(u, f, 1) + e1(u, f, 1, 2) + e2(u, f, 1, -1, true) + e3(u, f, 1, 2, 3, -4) +
	        e4(u, f, 1, 1.5f, 2.5, (const void *)u, 7) + e5(u, f, 1, -1, -2, 3, 4, 5) + e6(u, f, 1, 1, 2, 3, 4, 5, false);
	chronon_begin(&w, u, f, 1, chronon_str_size("x") + 8);
	chronon_put_str(&w, "x");
	chronon_put_f64(&w, 1.0);
	a[0] = chronon_arg_str("y");
	return s + chronon_commit(&w) + chronon_emit_args(u, f, 2, a, 1) + chronon_enabled(u, f);
}
`)
	for _, mode := range [][]string{
		{"gcc", "-std=c99", "-pedantic-errors"},
		{"gcc", "-std=c11", "-pedantic-errors"},
		{"gcc", "-std=c17", "-pedantic-errors", "-O2"},
		{"g++", "-x", "c++", "-std=c++11", "-pedantic-errors"},
		{"g++", "-x", "c++", "-std=c++17", "-pedantic-errors", "-O2"},
	} {
		if mode[0] == "g++" && !tc.cxx {
			continue
		}
		flags := append(append([]string{}, mode[1:]...), "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"+tc.include)
		out, how, err := ccc.compile(t.Logf, dir, mode[0], flags, csrc, "")
		if err != nil {
			t.Errorf("chronon.h does not compile with %v: %v\n%s", mode, err, out)
		}
		t.Logf("h.c %v: %s", mode, how)
	}
	if !tc.cxx {
		return
	}
	hpp := filepath.Join(dir, "h.cpp")
	writeFile(t, hpp, `#include "chronon.hpp"
#include <string>
enum class E : int16_t { a = 1 };
static chronon::Status f(chronon::Unit u) {
	static const chronon::Format<int8_t, uint16_t, int, long, unsigned long long, float, double, bool, const char *,
	                             std::string_view, std::string, const void *, E>
	    all("all {} {} {} {} {} {} {} {} {} {} {} {} {}");
	static_assert(decltype(all)::types[2] == CHRONON_INT32 && decltype(all)::types[3] == CHRONON_INT64 &&
	                  decltype(all)::types[8] == CHRONON_STRING && decltype(all)::types[11] == CHRONON_POINTER &&
	                  decltype(all)::types[12] == CHRONON_INT16 && decltype(all)::fixed_size == 1 + 2 + 4 + 8 + 8 + 4 + 8 + 1 + 8 + 2 &&
	                  decltype(all)::n_strings == 3,
	              "argument types derived from C++ types");
	static const chronon::Format<uint64_t, chronon::Flow> flowed("x {} flow={}");
	static_assert(decltype(flowed)::types[1] == CHRONON_UINT64 && decltype(flowed)::roles[0] == CHRONON_ROLE_PLAIN &&
	                  decltype(flowed)::roles[1] == CHRONON_ROLE_FLOW && decltype(flowed)::typed_roles && !decltype(all)::typed_roles,
	              "a chronon::Flow argument is a UInt64 with role flow");
	static const chronon::Span span("s", chronon::FormatOptions().category(2));
	static const chronon::Counter counter("c");
	static const chronon::FloatCounter fcounter("f");
	static const chronon::Counter<uint8_t> small("u8");
	static_assert(std::is_same_v<decltype(counter), const chronon::Counter<int64_t>>, "Counter defaults to int64_t");
	return static_cast<chronon::Status>(
	    static_cast<int>(all.emit(u, 1, -1, 2, 3, 4, 5, 1.5f, 2.5, true, "s", std::string_view("v"), std::string("w"), nullptr, E::a)) +
	    static_cast<int>(flowed.emit(u, 1, 2, 3)) + static_cast<int>(span.begin(u, 1, 0)) + static_cast<int>(span.end(u, 2, 0, 9)) +
	    static_cast<int>(span.complete(u, 1, 5, 0, chronon::Flow(9))) + static_cast<int>(counter.sample(u, 1, -3)) +
	    static_cast<int>(fcounter.sample(u, 1, 0.5)) + static_cast<int>(small.sample(u, 1, 7)));
}
int main() { return static_cast<int>(f(chronon::Unit())); }
`)
	for _, mode := range [][]string{{"-std=c++17"}, {"-std=c++20"}, {"-std=c++17", "-fno-exceptions"}} {
		flags := append(append([]string{}, mode...), "-pedantic-errors", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"+tc.include)
		out, how, err := ccc.compile(t.Logf, dir, "g++", flags, hpp, "")
		if err != nil {
			t.Errorf("chronon.hpp does not compile with %v: %v\n%s", mode, err, out)
		}
		t.Logf("h.cpp %v: %s", mode, how)
	}
	// Mismatches are compile errors, so emit needs no run-time check.
	for name, body := range map[string]string{
		"too many arguments": `static const chronon::Format<uint64_t> f("x {}"); int main() { return (int)f.emit(chronon::Unit(), 1, 2, 3); }`,
		"too few arguments":  `static const chronon::Format<uint64_t, bool> f("x {} {}"); int main() { return (int)f.emit(chronon::Unit(), 1, 2); }`,
		"wrong type":         `#include <vector>` + "\n" + `static const chronon::Format<uint64_t> f("x {}"); int main() { return (int)f.emit(chronon::Unit(), 1, std::vector<int>()); }`,
		"unsupported type":   `#include <vector>` + "\n" + `static const chronon::Format<std::vector<int>> f("x {}"); int main() { return 0; }`,
		"two flow arguments": `static const chronon::Format<chronon::Flow, chronon::Flow> f("x {} {}"); int main() { return 0; }`,
		"a bool counter":     `static const chronon::Counter<bool> c("c"); int main() { return 0; }`,
		"a string counter":   `static const chronon::Counter<const char *> c("c"); int main() { return 0; }`,
		"a string flow":      `static const chronon::Format<chronon::Flow> f("x {}"); int main() { return (int)f.emit(chronon::Unit(), 1, "s"); }`,
	} {
		src := filepath.Join(dir, "bad.cpp")
		writeFile(t, src, "#include \"chronon.hpp\"\n"+body+"\n")
		_, how, err := ccc.compile(t.Logf, dir, "g++", []string{"-std=c++17", "-fsyntax-only", "-I" + tc.include}, src, "")
		if err == nil {
			t.Errorf("chronon.hpp accepts an emit with %s", name)
		}
		t.Logf("bad.cpp (%s): %s", name, how)
	}
}

// TestCExample runs the C example simulator: statuses, oracle, dump.
func TestCExample(t *testing.T) {
	tc := setup(t)
	out := filepath.Join(t.TempDir(), "example.ctrace")
	stdout, _ := run(t, nil, tc.bin["example_sim"], out)
	t.Logf("example_sim:\n%s", stdout)
	if ok := tc.oracleCheck(t, out); ok != "" && !strings.HasPrefix(ok, "OK events=1807 ") {
		t.Errorf("oracle: %s, want 1807 events", ok)
	}
	tc.golden(t, "example_sim.dump", tc.dump(t, out))
	tr := readTrace(t, out)
	if tr.schema.SimulationName != "example-c" || tr.schema.ConfigHash != 0xC0FFEE {
		t.Errorf("schema: simulation %q hash %#x", tr.schema.SimulationName, tr.schema.ConfigHash)
	}
	md := map[string]string{}
	for _, kv := range tr.schema.Metadata {
		md[kv.Key] = kv.Value
	}
	if md["cores"] != "2" || md["example"] != "c" || md["pid"] == "" || !strings.Contains(md["command_line"], "example_sim") {
		t.Errorf("metadata: %v", md)
	}
	var span *schema.Format
	for i, f := range tr.schema.Formats {
		if f.Format == "miss lane={} flow={} dur={}" {
			span = &tr.schema.Formats[i]
		}
	}
	if span == nil || span.Kind != schema.KindSpanComplete || span.Name != "miss" || len(span.ArgRoles) != 3 ||
		span.ArgRoles[2] != schema.RoleDuration || !strings.HasSuffix(span.File, "example_sim.c") || span.Line == 0 {
		t.Errorf("span format in the schema: %+v", span)
	}
	var cats []string
	for _, c := range tr.schema.Categories {
		cats = append(cats, fmt.Sprintf("%s=%d", c.Name, c.Mask))
	}
	// Registered categories get their own bits, never CHRONON_CATEGORY_DEFAULT (1),
	// which the example's uncategorized formats are in.
	if got := strings.Join(cats, " "); got != "pipe=2 mem=4 debug=8" {
		t.Errorf("categories: %s, want pipe=2 mem=4 debug=8", got)
	}
	for _, s := range tr.footer.UnitStats {
		if s.Emitted != s.Written || s.Dropped != 0 {
			t.Errorf("footer unit stats: %+v", s)
		}
	}
}

// TestCppExample runs the C++ example (shared library) and its edge checks,
// and the same program linked with libchronon.a, whose formats are
// registered by static constructors before the Go runtime starts.
func TestCppExample(t *testing.T) {
	tc := setup(t)
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	var want []string
	for _, prog := range []string{"example_sim_cpp", "example_sim_cpp_static"} {
		dir := t.TempDir()
		out, scratch := filepath.Join(dir, "example.ctrace"), filepath.Join(dir, "scratch.ctrace")
		stdout, _ := run(t, nil, tc.bin[prog], out, scratch)
		if !strings.Contains(stdout, "edges checked") {
			t.Fatalf("%s: %s", prog, stdout)
		}
		if ok := tc.oracleCheck(t, out); ok != "" && !strings.HasPrefix(ok, "OK events=532 ") {
			t.Errorf("%s: oracle: %s, want 532 events", prog, ok)
		}
		tc.oracleCheck(t, scratch)
		lines := tc.dump(t, out)
		if want == nil {
			tc.golden(t, "example_sim_cpp.dump", lines)
			want = lines
		} else if d := firstDiff(lines, want); d != "" {
			t.Errorf("%s (static) dump differs from the shared library's: %s", prog, d)
		}
	}
}

// TestCppNoExceptions: built with -fno-exceptions, the constructors record
// a status instead of throwing, and failed objects are inert.
func TestCppNoExceptions(t *testing.T) {
	tc := setup(t)
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "noexc.cpp"), filepath.Join(dir, "noexc")
	writeFile(t, src, `#include "chronon.hpp"
#include <cstdio>
static const chronon::Format<uint32_t> good("good {}");
static const chronon::Format<uint32_t> bad("bad: no placeholder");
int main(int, char **argv) {
	int fails = 0;
	chronon::Tracer nowhere("/nonexistent-dir/x.ctrace");
	fails += nowhere.valid() || nowhere.status() != chronon::Status::err_io;
	fails += good.status() != chronon::Status::ok || bad.status() != chronon::Status::err_arg;
	chronon::Tracer tr(argv[1]);
	chronon::Unit u = tr.unit("u"), dup = tr.unit("u");
	fails += !tr.valid() || !u || static_cast<bool>(dup);
	fails += good.emit(u, 1, 7) != chronon::Status::ok;
	fails += bad.emit(u, 2, 7) != chronon::Status::disabled;
	fails += dup.raw() != &chronon__dead_unit || good.emit(dup, 3, 7) != chronon::Status::closed;
	fails += tr.close() != chronon::Status::ok;
	std::printf("%d failures\n", fails);
	return fails;
}
`)
	out, how, err := ccBuild(t.Logf, dir, "g++", []string{"-std=c++17", "-fno-exceptions", "-Wall", "-Wextra", "-Werror", "-I" + tc.include},
		src, exe, "-L"+tc.lib, "-Wl,-rpath,"+tc.lib, "-lchronon")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("noexc.cpp: %s", how)
	trace := filepath.Join(dir, "noexc.ctrace")
	run(t, nil, exe, trace)
	tc.oracleCheck(t, trace)
}

// TestW1Multiset: W1 emitted from C holds the same events as tracegen's.
func TestW1Multiset(t *testing.T) {
	tc := setup(t)
	for _, cfg := range [][]string{
		{"--events", "300000", "--units", "16"},
		{"--events", "100000", "--units", "3", "--block-size", "4096", "--level", "0"},
	} {
		dir := t.TempDir()
		cfile, gofile := filepath.Join(dir, "c.ctrace"), filepath.Join(dir, "go.ctrace")
		_, cerr := run(t, nil, append([]string{tc.bin["w1gen"]}, append(cfg, "-o", cfile)...)...)
		_, goerr := run(t, nil, append([]string{tc.tracegen, "--workload", "w1"}, append(cfg, "-o", gofile)...)...)
		t.Logf("%s%s", cerr, goerr)
		tc.oracleCheck(t, cfile)
		c, g := readTrace(t, cfile), readTrace(t, gofile)
		if c.footer.TotalEvents != g.footer.TotalEvents {
			t.Fatalf("%v: %d events from C, %d from tracegen", cfg, c.footer.TotalEvents, g.footer.TotalEvents)
		}
		cm, gm := c.multiset(t), g.multiset(t)
		diff := 0
		for k, n := range gm {
			if cm[k] != n {
				if diff++; diff <= 3 {
					t.Errorf("%v: event %s: %d from C, %d from tracegen", cfg, k, cm[k], n)
				}
			}
		}
		if len(cm) != len(gm) || diff > 0 {
			t.Fatalf("%v: multisets differ (%d distinct from C, %d from tracegen, %d differences)", cfg, len(cm), len(gm), diff)
		}
		if c.schema.SimulationName != "w1" || len(c.schema.Units) != len(g.schema.Units) {
			t.Errorf("%v: schema: %q, %d units", cfg, c.schema.SimulationName, len(c.schema.Units))
		}
		// And the text, as trace_reader (or the oracle) prints it.
		if d := firstDiff(tc.dump(t, cfile), tc.dump(t, gofile)); d != "" {
			t.Errorf("%v: sorted dumps differ: %s", cfg, d)
		}
		t.Logf("%v: %d events, %d distinct, identical multisets", cfg, c.footer.TotalEvents, len(cm))
	}
}

// TestThreadsNoLoss: 8 C threads, one unit each, 1M events each, Block
// policy with a small ring (the producers wait thousands of times): every
// event is in the file, each unit's in order.
//
// Twice: with the default wait (in C first, then in Go), and with
// CHRONON_C_WAIT_US=0, where every wait goes through cabi.WaitForRoom.
func TestThreadsNoLoss(t *testing.T) {
	tc := setup(t)
	// 1M events a thread through a ring of two blocks make the producers
	// wait thousands of times with the default wait; the run where every
	// wait goes through Go takes 300k (hundreds of waits, the same path
	// each time: the oracle's Python check of 8M events was most of the
	// test's time).
	const threads = 8
	for _, env := range [][]string{nil, {"CHRONON_C_WAIT_US=0"}} {
		n := 1000000
		if env != nil {
			n = 300000
		}
		out := filepath.Join(t.TempDir(), "threads.ctrace")
		stdout, _ := run(t, env, tc.bin["threads"], "--threads", fmt.Sprint(threads), "--events", fmt.Sprint(n), "-o", out)
		t.Logf("%v: %s", env, strings.TrimSpace(stdout))
		if !strings.Contains(stdout, "nothing lost") {
			t.Fatal(stdout)
		}
		var waits int
		if _, after, ok := strings.Cut(stdout, "waits="); !ok {
			t.Fatalf("no waits= in %q", stdout)
		} else if _, err := fmt.Sscanf(after, "%d", &waits); err != nil || waits < 100 {
			t.Fatalf("the producers waited %d times (%v): the ring never filled, the test checks nothing: %s", waits, err, stdout)
		}
		if ok := tc.oracleCheck(t, out); ok != "" && !strings.HasPrefix(ok, fmt.Sprintf("OK events=%d ", threads*n)) {
			t.Fatalf("oracle: %s", ok)
		}
		verifySequences(t, out, threads, n)
	}
}

// TestThreadsShared: 8 C threads emit into one shared unit (each emit
// between chronon_unit_lock and chronon_unit_unlock), Block policy, small
// ring: every event is in the file whole, each thread's in its order.
func TestThreadsShared(t *testing.T) {
	tc := setup(t)
	const threads, n = 8, 200000
	out := filepath.Join(t.TempDir(), "shared.ctrace")
	stdout, _ := run(t, nil, tc.bin["threads"], "--shared", "--threads", fmt.Sprint(threads), "--events", fmt.Sprint(n), "-o", out)
	t.Logf("%s", strings.TrimSpace(stdout))
	if !strings.Contains(stdout, "nothing lost") {
		t.Fatal(stdout)
	}
	if ok := tc.oracleCheck(t, out); ok != "" && !strings.HasPrefix(ok, fmt.Sprintf("OK events=%d ", threads*n)) {
		t.Fatalf("oracle: %s", ok)
	}
	verifyShared(t, out, threads, n)
}

// verifyShared checks the one unit of threads --shared: thread k's events
// are seq = k<<32 | i at cycle i, odd = i&1, in order of i.
func verifyShared(t *testing.T, path string, threads, n int) {
	t.Helper()
	tr := readTrace(t, path)
	next := make([]uint64, threads)
	var unit uint16
	err := tr.events(func(r schema.Record, args []byte) error {
		if unit == 0 {
			unit = r.SourceID
		}
		if len(args) != 9 || r.SourceID != unit {
			return fmt.Errorf("event of unit %d with args %x", r.SourceID, args)
		}
		key := leU64(args)
		k, i := key>>32, key&0xffffffff
		if k >= uint64(threads) || i != next[k] || r.Cycle != i || args[8] != byte(i&1) {
			return fmt.Errorf("event cycle %d args %x: thread %d wants seq %d", r.Cycle, args, k, next[min(k, uint64(threads-1))])
		}
		next[k]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range next {
		if c != uint64(n) {
			t.Errorf("thread %d: %d events, want %d", k, c, n)
		}
	}
	if len(tr.footer.UnitStats) != 1 || tr.footer.UnitStats[0].Emitted != uint64(threads*n) || tr.footer.UnitStats[0].Written != uint64(threads*n) {
		t.Errorf("footer unit stats: %+v", tr.footer.UnitStats)
	}
}

// verifySequences checks that each unit of the threads program holds
// seq = cycle = 0..n-1, in order, odd = seq&1.
func verifySequences(t *testing.T, path string, threads, n int) {
	t.Helper()
	tr := readTrace(t, path)
	next := map[uint16]uint64{}
	err := tr.events(func(r schema.Record, args []byte) error {
		want := next[r.SourceID]
		if len(args) != 9 || r.Cycle != want || leU64(args) != want || args[8] != byte(want&1) {
			return fmt.Errorf("unit %d: event cycle %d args %x, want seq %d", r.SourceID, r.Cycle, args, want)
		}
		next[r.SourceID] = want + 1
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(next) != threads {
		t.Fatalf("%d units have events, want %d", len(next), threads)
	}
	for id, c := range next {
		if c != uint64(n) {
			t.Errorf("unit %d: %d events, want %d", id, c, n)
		}
	}
	for _, s := range tr.footer.UnitStats {
		if s.Emitted != uint64(n) || s.Written != uint64(n) || s.Dropped != 0 {
			t.Errorf("footer unit stats: %+v", s)
		}
	}
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// TestThreadsTSan runs the 8-thread test built with -fsanitize=thread,
// against a library whose C files (the slow path) are instrumented too, and
// a negative control that breaks the one-producer-per-unit rule on purpose
// and must be reported (showing TSan sees the inline emit path). The Go
// runtime inside the process is not instrumented (ThreadSanitizer never
// sees the consumer's accesses).
func TestThreadsTSan(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	gocmd := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		gocmd = "go"
	}
	how := "library C files instrumented"
	libEnv, err := libchrononEnv(gocmd, tc.include, "-fsanitize=thread -O1 -g")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := command(tc.root, append(libEnv, "CGO_LDFLAGS=-fsanitize=thread"),
		gocmd, "build", "-buildmode=c-shared", "-o", filepath.Join(lib, "libchronon.so"), "./cgo/lib"); err != nil {
		t.Logf("##### the library does not build with -fsanitize=thread (%s): using the plain one #####", firstLine(out))
		lib, how = tc.lib, "inline emit path instrumented, library not"
	}
	exe := filepath.Join(dir, "threads_tsan")
	built, cc, err := ccBuild(t.Logf, tc.root, "gcc", []string{"-fsanitize=thread", "-O1", "-g", "-I" + tc.include},
		filepath.Join(tc.root, "cgo", "examples", "threads.c"), exe, "-L"+lib, "-Wl,-rpath,"+lib, "-lchronon", "-lpthread")
	if err != nil {
		t.Skipf("##### THREADSANITIZER TEST SKIPPED: gcc -fsanitize=thread does not link here: %s #####", firstLine(built))
	}
	t.Logf("threads.c -fsanitize=thread: %s", cc)
	env := []string{"TSAN_OPTIONS=halt_on_error=0 exitcode=66 history_size=2"}
	stdout, stderr, err := runErr(t, env, exe, "--threads", "8", "--events", "300000", "-o", filepath.Join(dir, "t.ctrace"))
	if strings.Contains(stderr, "FATAL: ThreadSanitizer") {
		t.Skipf("##### THREADSANITIZER TEST SKIPPED: TSan cannot run here: %s #####", firstLine([]byte(stderr)))
	}
	if err != nil || strings.Contains(stderr, "WARNING: ThreadSanitizer") || !strings.Contains(stdout, "nothing lost") {
		t.Fatalf("8 threads under TSan (%s): %v\nstdout:\n%s\nstderr:\n%s", how, err, stdout, tail(stderr))
	}
	t.Logf("TSan clean (%s): %s", how, strings.TrimSpace(stdout))
	stdout, stderr, err = runErr(t, env, exe, "--shared", "--threads", "4", "--events", "50000", "-o", filepath.Join(dir, "shared.ctrace"))
	if err != nil || strings.Contains(stderr, "WARNING: ThreadSanitizer") || !strings.Contains(stdout, "nothing lost") {
		t.Fatalf("4 threads on one shared unit under TSan (%s): %v\nstdout:\n%s\nstderr:\n%s", how, err, stdout, tail(stderr))
	}
	t.Logf("TSan clean on a shared unit: %s", strings.TrimSpace(stdout))
	// Two producers on one unit can also break the ring: a producer may
	// then wait for room that never comes (the program ran to runErr's
	// five minutes now and then). TSan reports the race within seconds;
	// what is checked is its report, so a minute is the limit.
	_, stderr, err = runErrWithin(t, time.Minute, env, exe, "--share-unit", "--threads", "2", "--events", "20000", "-o", filepath.Join(dir, "race.ctrace"))
	if !strings.Contains(stderr, "WARNING: ThreadSanitizer: data race") || !strings.Contains(stderr, "chronon") {
		t.Fatalf("negative control: two threads on one unit were not reported (%v):\n%s", err, tail(stderr))
	}
	t.Log("negative control: TSan reports two producers on one unit, in " + firstFrame(stderr))
}

func firstFrame(s string) string {
	if m := regexp.MustCompile(`#0 (\S+) (\S+)`).FindStringSubmatch(s); m != nil {
		return m[1] + " (" + filepath.Base(m[2]) + ")"
	}
	return "?"
}

// TestMisuse: every misuse is a status, never a crash, and the files stay valid.
func TestMisuse(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	stdout, stderr, err := runErr(t, nil, tc.bin["misuse"], dir)
	if err != nil || !strings.Contains(stdout, "PASS: 0 failures") {
		var fails []string
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "FAIL") {
				fails = append(fails, l)
			}
		}
		t.Fatalf("misuse: %v\n%s\nstderr: %s", err, strings.Join(fails, "\n"), tail(stderr))
	}
	t.Logf("misuse: %d checks passed", strings.Count(stdout, "\nok ")+1)
	tc.oracleCheck(t, filepath.Join(dir, "misuse.ctrace"))
	tc.oracleCheck(t, filepath.Join(dir, "drop.ctrace"))
	// The event with a string longer than a block was truncated as the Go
	// runtime truncates: it fills its block exactly (26 + 4070 bytes).
	tr := readTrace(t, filepath.Join(dir, "misuse.ctrace"))
	// max_args 4070 = 4064 'y' + NUL + u32 + "" + NUL: the first string keeps
	// one byte for the second's terminator, the second gets none.
	found := false
	if err := tr.events(func(r schema.Record, args []byte) error {
		if r.Cycle == 3 {
			found = len(args) == 4096-26 && args[4064] == 0 && args[4065] == 9 && args[4069] == 0 &&
				strings.Count(string(args), "y") == 4064
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Error("the truncated event is not laid out like the Go runtime's layoutStrings")
	}
}

// TestStaticInit: with libchronon.a, registration from a constructor that
// runs before the Go runtime starts is deferred, not deadlocked; an open
// that early returns a status after a bounded wait.
func TestStaticInit(t *testing.T) {
	tc := setup(t)
	out := filepath.Join(t.TempDir(), "early.ctrace")
	stdout, _ := run(t, nil, tc.bin["static_init"], out)
	t.Log(strings.TrimSpace(stdout))
	if !strings.Contains(stdout, "main: 1000 events written") {
		t.Fatal(stdout)
	}
	tc.oracleCheck(t, out)
	tr := readTrace(t, out)
	// The first registered category gets bit 1: bit 0 is CHRONON_CATEGORY_DEFAULT,
	// which masking "early" off must not take away from default formats.
	if len(tr.schema.Formats) != 1 || tr.schema.Formats[0].Format != "early x={}" || tr.schema.Formats[0].Category != 2 ||
		len(tr.schema.Categories) != 1 || tr.schema.Categories[0].Name != "early" || tr.schema.Categories[0].Mask != 2 {
		t.Errorf("schema: formats %+v categories %+v", tr.schema.Formats, tr.schema.Categories)
	}
	if testing.Short() {
		return
	}
	stdout, _ = run(t, []string{"STATIC_INIT_OPEN=1"}, tc.bin["static_init"], out)
	if !strings.Contains(stdout, "Go runtime up during the constructor: yes") &&
		!strings.Contains(stdout, "constructor open: CHRONON_ERR_INTERNAL") {
		t.Fatalf("chronon_open from an early constructor: %s", stdout)
	}
	if !strings.Contains(stdout, "main: 1000 events written") {
		t.Fatal(stdout)
	}
}

// TestInstall: make install, then programs built with nothing but
// pkg-config's flags (C and C++, shared) start without LD_LIBRARY_PATH
// (chronon.pc carries the rpath) and write traces that read back; and a
// static build needs no libchronon.so at all.
func TestInstall(t *testing.T) {
	tc := setup(t)
	for _, tool := range []string{"make", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("##### INSTALL TEST SKIPPED: %s is not installed (apt-get install pkg-config) #####", tool)
		}
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	gocmd := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		gocmd = "go"
	}
	libEnv, err := libchrononEnv(gocmd, tc.include, "")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := command(tc.root, libEnv, "make", "--no-print-directory", "install", "GO="+gocmd,
		"CBUILD="+filepath.Join(dir, "build"), "PREFIX="+prefix); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig")}
	flags, err := command(dir, env, "pkg-config", "--cflags", "--libs", "chronon")
	if err != nil {
		t.Fatalf("pkg-config: %v: %s", err, flags)
	}
	version, _ := command(dir, env, "pkg-config", "--modversion", "chronon")
	header, _ := os.ReadFile(filepath.Join(prefix, "include", "chronon.h"))
	if !strings.Contains(string(header), `#define CHRONON_VERSION "`+strings.TrimSpace(string(version))+`"`) {
		t.Errorf("chronon.pc version %q is not chronon.h's CHRONON_VERSION", version)
	}
	ex := filepath.Join(tc.root, "cgo", "examples")
	shared := filepath.Join(dir, "shared")
	args := append([]string{"gcc", "-o", shared, filepath.Join(ex, "example_sim.c")}, strings.Fields(string(flags))...)
	if out, err := command(dir, nil, args...); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	exes := []string{shared}
	cflagsOnly, _ := command(dir, env, "pkg-config", "--cflags", "chronon")
	if tc.cxx {
		sharedCxx := filepath.Join(dir, "shared_cpp")
		// No -O2: what is checked is that pkg-config's flags build and link
		// a C++ program, and the optimiser is most of the compile's time.
		// Compiled with --cflags (through the compile cache: the installed
		// headers are in its key) and linked with --libs, as a build
		// system does; the C program above takes both in one command.
		libsOnly, _ := command(dir, env, "pkg-config", "--libs", "chronon")
		out, how, err := ccBuild(t.Logf, dir, "g++", append([]string{"-std=c++17"}, strings.Fields(string(cflagsOnly))...),
			filepath.Join(ex, "example_sim.cpp"), sharedCxx, strings.Fields(string(libsOnly))...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		t.Logf("example_sim.cpp with pkg-config's flags: %s", how)
		exes = append(exes, sharedCxx)
	}
	static := filepath.Join(dir, "static")
	private, _ := command(dir, env, "pkg-config", "--static", "--libs-only-l", "chronon")
	args = append(append([]string{"gcc", "-o", static, filepath.Join(ex, "example_sim.c")}, strings.Fields(string(cflagsOnly))...), filepath.Join(prefix, "lib", "libchronon.a"))
	args = append(args, strings.Fields(strings.ReplaceAll(string(private), "-lchronon", ""))...)
	if out, err := command(dir, nil, args...); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	exes = append(exes, static)
	for _, exe := range exes {
		out := exe + ".ctrace"
		runNoLoaderPath(t, exe, out)
		tc.oracleCheck(t, out)
		if tr := readTrace(t, out); len(tr.footer.Blocks) == 0 || len(tr.schema.Formats) == 0 {
			t.Errorf("%s: the trace holds %d blocks, %d formats", out, len(tr.footer.Blocks), len(tr.schema.Formats))
		}
	}
	if out, _ := command(dir, nil, "ldd", static); strings.Contains(string(out), "libchronon") {
		t.Errorf("the static program loads libchronon.so: %s", out)
	}
}

// runNoLoaderPath runs a program the way a user would after make install:
// without LD_LIBRARY_PATH (or any other loader variable) pointing at the library.
func runNoLoaderPath(t *testing.T, argv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s (without LD_LIBRARY_PATH): %v\n%s", strings.Join(argv, " "), err, tail(string(out)))
	}
}

// TestCbenchSmoke runs cbench small: it builds, runs and prints both figures,
// the emit in both setups (hot ring, cold ring) next to the floor. cbench
// itself exits 1 if a run lost or dropped an event.
func TestCbenchSmoke(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	stdout, _ := run(t, nil, tc.bin["cbench"], "--events", "300000", "--w1-events", "200000", "--reps", "1",
		"--tracegen", tc.tracegen, "--dir", dir)
	t.Log(stdout)
	for _, want := range []string{"ns/event", "enabled u64+bool emit", "ratio C/Go", "   hot: ", "   cold: ",
		"floor: the 35 bytes, no checks"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("cbench output lacks %q", want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCppSharedUnitThreads: 8 std::threads emit into one unit created with
// chronon::UnitOptions().shared(), through plain Format::emit (which takes
// the unit's lock by itself), with a small ring; the file must hold every
// event whole, each thread's in its order, as TestThreadsShared checks.
func TestCppSharedUnitThreads(t *testing.T) {
	tc := setup(t)
	exe := tc.compileCxx(t, "shared_threads", `#include <chronon.hpp>
#include <cstdio>
#include <thread>
#include <vector>

const chronon::Format<uint64_t, bool> f_seq("seq={} odd={}");

int main(int argc, char **argv) {
	if (argc != 4)
		return 2;
	const unsigned threads = std::atoi(argv[2]);
	const uint64_t n = std::strtoull(argv[3], nullptr, 10);
	chronon::Tracer tr(argv[1], chronon::Options().block_size(65536).ring_size(2 * 65536));
	chronon::Unit u = tr.unit("shared", "Worker", chronon::UnitOptions().shared());
	if (!u.shared()) {
		std::fprintf(stderr, "unit not shared\n");
		return 1;
	}
	std::vector<std::thread> ts;
	std::vector<uint64_t> failed(threads);
	for (unsigned k = 0; k < threads; k++)
		ts.emplace_back([&, k] {
			for (uint64_t i = 0; i < n; i++)
				failed[k] += f_seq.emit(u, i, uint64_t(k) << 32 | i, (i & 1) != 0) != chronon::Status::ok;
			if (k == 0)
				u.flush(); // any thread may flush a shared unit
		});
	for (auto &t : ts)
		t.join();
	for (unsigned k = 0; k < threads; k++)
		if (failed[k]) {
			std::fprintf(stderr, "thread %u: %llu emits failed\n", k, (unsigned long long)failed[k]);
			return 1;
		}
	if (tr.close() != chronon::Status::ok)
		return 1;
	std::printf("ok\n");
	return 0;
}
`, "-pthread")
	const threads, n = 8, 100000
	out := filepath.Join(t.TempDir(), "shared.ctrace")
	run(t, nil, exe, out, fmt.Sprint(threads), fmt.Sprint(n))
	if ok := tc.oracleCheck(t, out); ok != "" && !strings.HasPrefix(ok, fmt.Sprintf("OK events=%d ", threads*n)) {
		t.Fatalf("oracle: %s", ok)
	}
	verifyShared(t, out, threads, n)
}
