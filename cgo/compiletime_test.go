package capi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCppCompileTimeChecks: what chronon.hpp's types rule out does not
// compile, with the header's message where it has one; the good forms of
// the same calls compile (so each failure is the checked mistake, not a
// typo in the test).
func TestCppCompileTimeChecks(t *testing.T) {
	tc := setup(t)
	if !tc.cxx {
		t.Skip("##### g++ is not installed: C++ TEST SKIPPED #####")
	}
	dir := t.TempDir()
	flags := []string{"-std=c++17", "-Wall", "-Wextra", "-Werror"}
	// chronon.hpp precompiled once: each of the dozen compiles below then
	// reads it instead of parsing it and the standard headers again (0.7 s
	// of CPU each -> 0.25 s). GCC takes dir/pch/chronon.hpp.gch for
	// "chronon.hpp" when the flags match and silently parses the header
	// when they do not, so the checks hold either way.
	pch := filepath.Join(dir, "pch")
	if err := os.Mkdir(pch, 0o755); err != nil {
		t.Fatal(err)
	}
	out, how, err := ccc.compile(t.Logf, dir, "g++", append(append([]string{}, flags...), "-x", "c++-header"),
		filepath.Join(tc.include, "chronon.hpp"), filepath.Join(pch, "chronon.hpp.gch"))
	if err != nil {
		t.Logf("##### chronon.hpp does not precompile (%s): the checks parse it each time #####", firstLine(out))
	}
	t.Logf("chronon.hpp.gch: %s", how)
	compiles := func(body string) (string, bool) {
		src := filepath.Join(dir, "x.cpp")
		writeFile(t, src, "#include \"chronon.hpp\"\n"+body+"\nint main() { return 0; }\n")
		out, how, err := ccc.compile(t.Logf, dir, "g++", append(append([]string{}, flags...), "-fsyntax-only", "-I"+pch, "-I"+tc.include), src, "")
		t.Logf("x.cpp: %s", how)
		return string(out), err == nil
	}
	cases := []struct {
		what, good, bad, msg string
	}{
		{"a namespace-scope format's placeholder count (it threw before main)",
			`static const chronon::Format<uint64_t, bool> f(CHRONON_TEXT("fetch pc=0x{:x} taken={}"));`,
			`static const chronon::Format<uint64_t, bool> f(CHRONON_TEXT("fetch pc=0x{:x} taken"));`,
			"placeholder count is not the argument count"},
		{"an unclosed brace is text, as the library counts",
			`static const chronon::Format<uint64_t> f(CHRONON_TEXT("a={} b={"));`,
			`static const chronon::Format<uint64_t, uint64_t> f(CHRONON_TEXT("a={} b={"));`,
			"placeholder count is not the argument count"},
		{"Format::create's placeholder count",
			`static chronon::Status st; static const auto f = chronon::Format<int>::create(CHRONON_TEXT("x {}"), st);`,
			`static chronon::Status st; static const auto f = chronon::Format<int>::create(CHRONON_TEXT("x {} {}"), st);`,
			"placeholder count is not the argument count"},
		{"an async span's argument text",
			`static const chronon::AsyncSpan<uint32_t> a("req", CHRONON_TEXT("bytes={}"));`,
			`static const chronon::AsyncSpan<uint32_t> a("req", CHRONON_TEXT("bytes"));`,
			"placeholder count is not the argument count"},
		{"an async span with arguments but no text",
			`static const chronon::AsyncSpan<> a("req");`,
			`static const chronon::AsyncSpan<uint32_t> a("req");`,
			"give the text of the begin's arguments"},
		{"CHRONON_TEXT of a string that is not a literal",
			`static const chronon::Format<int> f(CHRONON_TEXT("x {}"));`,
			`static const char *text = "x {}"; static const chronon::Format<int> f(CHRONON_TEXT(text));`,
			""},
		{"a lane where the duration goes (complete)",
			`int g(chronon::Unit u, const chronon::Span &s) { return (int)s.complete(u, 10, 5, chronon::Lane(2), 7); }`,
			`int g(chronon::Unit u, const chronon::Span &s) { return (int)s.between(u, 10, 15, 2, 7); }`,
			""},
		{"a number as a symbol",
			`int g(chronon::Unit u, chronon::Tracer &t) { static const chronon::Format<chronon::Symbol> f("s={}"); return (int)f.emit(u, 1, t.intern("x")); }`,
			`int g(chronon::Unit u) { static const chronon::Format<chronon::Symbol> f("s={}"); return (int)f.emit(u, 1, 5); }`,
			""},
		{"two dependencies in one event",
			`static const chronon::Format<chronon::Flow, chronon::Depends> f("w flow={} on={}");`,
			`static const chronon::Format<chronon::Flow, chronon::Depends, chronon::Depends> f("w flow={} on={} {}");`,
			"at most one chronon::Depends argument"},
		{"two parents",
			`static const chronon::Format<chronon::SpanId, chronon::Parent> f("t {} {}");`,
			`static const chronon::Format<chronon::Parent, chronon::Parent> f("t {} {}");`,
			"at most one chronon::Parent argument"},
		{"a stage that is not an index",
			`enum S { fetch }; int g(chronon::Unit u, const chronon::Stages &p, chronon::Inst &in) { return (int)p.enter(u, 1, in, fetch); }`,
			`int g(chronon::Unit u, const chronon::Stages &p, chronon::Inst &in) { return (int)p.enter(u, 1, in, "fetch"); }`,
			""},
	}
	// The good forms compile together (each in a namespace of its own);
	// only when that fails are they compiled one by one to name the culprit.
	var all strings.Builder
	for i, c := range cases {
		fmt.Fprintf(&all, "namespace good%d {\n%s\n}\n", i, c.good)
	}
	_, allGood := compiles(all.String())
	for _, c := range cases {
		if !allGood {
			if out, ok := compiles(c.good); !ok {
				t.Errorf("%s: the good form does not compile:\n%s", c.what, out)
				continue
			}
		}
		out, ok := compiles(c.bad)
		if ok {
			t.Errorf("%s: compiles", c.what)
		} else if !strings.Contains(out, c.msg) {
			t.Errorf("%s: the compiler does not say %q:\n%s", c.what, c.msg, firstLines(out, 20))
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
