package capi

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// What Go records, C and C++ record: one scenario that uses every part of
// the trace model (pipeline stages with retire, squash and an instruction
// left in flight, a dependency, an inner span, counters sampled on change,
// async spans with typed and interned arguments and a parent, a tag on a
// span, a file and a unit time base), written three times: in Go with
// package chronon, in C with chronon.h, in C++ with chronon.hpp. The three
// files must read the same: the same dump, the same Kanata export, the same
// formats (text, kind, name, roles, types, category), symbols and time
// bases.

// modelGo is the scenario in Go.
func modelGo(t *testing.T, path string) {
	t.Helper()
	stages := chronon.MustStages("fetch", "decode", "execute", "commit")
	rob := chronon.MustCounter("rob")
	ipc := chronon.MustFloatCounter("ipc")
	wakeup := chronon.MustFormat2[uint64, uint64]("wakeup flow={} producer={}", chronon.WithFlow(0), chronon.WithDepends(1))
	fill := chronon.MustSpan("l1d.fill")
	req := chronon.MustAsyncSpan2[chronon.Symbol, uint32]("req", "what={} bytes={}")
	sub := chronon.MustAsyncSpan("sub")
	tag := chronon.MustFormat2[uint64, chronon.Symbol]("tag req={} what={}", chronon.WithSpanID(0))
	miss := chronon.MustFormat2[uint64, uint64]("mispredict flow={} ip=0x{:x}", chronon.WithFlow(0))

	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithSimulationName("model"),
		chronon.WithTimeBase(chronon.Hz(2_000_000_000)))
	if err != nil {
		t.Fatal(err)
	}
	core, err := tr.NewUnit("core")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := tr.NewUnit("mem")
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.SetTimeBase(chronon.Nanoseconds); err != nil {
		t.Fatal(err)
	}
	read, hit := tr.Intern("ReadReq"), tr.Intern("hit")
	robOcc, ipcOcc := rob.OnChange(core), &floatOnChange{c: ipc, u: core}

	var in [6]chronon.Inst
	for i := uint64(0); i < 6; i++ {
		in[i] = stages.Start(i)
		stages.Enter(core, 10+i, &in[i], 0)
		stages.Enter(core, 12+i, &in[i], 1)
		stages.Enter(core, 13+i, &in[i], 2)
		if i%2 == 1 {
			wakeup.Emit(core, 13+i, in[i].Flow(), in[i-1].Flow())
		}
		if i == 2 {
			fill.Between(mem, 16, 19, 1, in[i].Flow())
		}
		switch {
		case i < 4:
			stages.Enter(core, 20+i, &in[i], 3)
			stages.Retire(core, 22+i, &in[i])
		case i == 4:
			miss.Emit(core, 20, in[3].Flow(), 0x400000+i)
			stages.Squash(core, 21, &in[i])
		}
		robOcc.Sample(10+i, int64(min(i, 3)))
	}
	ipcOcc.Sample(30, 1.5)
	ipcOcc.Sample(31, 1.5)
	ipcOcc.Sample(32, 0.75)
	req.Begin(mem, 100, 7, 0, read, 64)
	sub.Begin(mem, 101, 8, 7)
	tag.Emit(mem, 102, 7, hit)
	sub.End(mem, 105, 8)
	req.End(mem, 110, 7)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if s := tr.Stats(); s.Symbols != 2 || s.SymbolsOverflowed != 0 {
		t.Errorf("Go: %d symbols, %d overflowed", s.Symbols, s.SymbolsOverflowed)
	}
}

// floatOnChange is Counter.OnChange for a FloatCounter (Go has the int64
// one only; C and C++ have both).
type floatOnChange struct {
	c    *chronon.FloatCounter
	u    *chronon.Unit
	last float64
	set  bool
}

func (o *floatOnChange) Sample(cycle uint64, v float64) {
	if o.set && v == o.last {
		return
	}
	o.last, o.set = v, true
	o.c.Sample(o.u, cycle, v)
}

// modelC is the scenario in C.
const modelC = `#include <stdio.h>
#include "chronon.h"
CHRONON_DEFINE_EMIT2(emit_u64_u64, u64, u64)
CHRONON_DEFINE_EMIT4(emit_req_begin, u64, u64, u32, u32)
CHRONON_DEFINE_EMIT2(emit_tag, u64, u32)
static int fails;
static void want(const char *what, chronon_status got) {
	if (got != CHRONON_OK) {
		printf("FAIL %s: %s: %s\n", what, chronon_status_string(got), chronon_last_error());
		fails++;
	}
}
#define CHECK(call) want(#call, (call))
int main(int argc, char **argv) {
	static const char *const names[] = {"fetch", "decode", "execute", "commit"};
	static const uint8_t t_u64_u64[] = {CHRONON_UINT64, CHRONON_UINT64}, t_tag[] = {CHRONON_UINT64, CHRONON_UINT32},
	                     t_req[] = {CHRONON_UINT32, CHRONON_UINT32};
	static const uint8_t r_wakeup[] = {CHRONON_ROLE_FLOW, CHRONON_ROLE_DEPENDS}, r_tag[] = {CHRONON_ROLE_ID, CHRONON_ROLE_SYMBOL},
	                     r_req[] = {CHRONON_ROLE_SYMBOL, CHRONON_ROLE_PLAIN}, r_miss[] = {CHRONON_ROLE_FLOW, CHRONON_ROLE_PLAIN};
	chronon_stages stages;
	chronon_format rob, ipc, wakeup, tag, miss;
	chronon_span fill;
	chronon_async req, sub;
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_tracer tr;
	chronon_unit *core, *mem;
	chronon_on_change rob_occ, ipc_occ;
	chronon_inst in[6];
	chronon_stats stats;
	uint32_t read, hit;
	uint64_t i;
	(void)argc;

	CHECK(chronon_stages_register(names, 4, NULL, &stages));
	CHECK(chronon_counter_register("rob", CHRONON_INT64, NULL, &rob));
	CHECK(chronon_counter_register("ipc", CHRONON_DOUBLE, NULL, &ipc));
	fo.roles = r_wakeup;
	CHECK(chronon_format_register("wakeup flow={} producer={}", t_u64_u64, 2, &fo, &wakeup));
	CHECK(chronon_span_register("l1d.fill", NULL, &fill));
	fo.roles = r_req;
	CHECK(chronon_async_register("req", "what={} bytes={}", t_req, 2, &fo, &req));
	CHECK(chronon_async_register("sub", NULL, NULL, 0, NULL, &sub));
	fo.roles = r_tag;
	CHECK(chronon_format_register("tag req={} what={}", t_tag, 2, &fo, &tag));
	fo.roles = r_miss;
	CHECK(chronon_format_register("mispredict flow={} ip=0x{:x}", t_u64_u64, 2, &fo, &miss));

	o.no_auto_metadata = 1;
	o.simulation_name = "model";
	o.time_base = chronon_hz(2000000000);
	CHECK(chronon_open(&tr, argv[1], &o));
	CHECK(chronon_unit_create(tr, "core", NULL, NULL, &core));
	CHECK(chronon_unit_create(tr, "mem", NULL, NULL, &mem));
	CHECK(chronon_unit_set_time_base(tr, mem, chronon_nanoseconds()));
	CHECK(chronon_intern(tr, "ReadReq", &read));
	CHECK(chronon_intern_n(tr, "hit and more", 3, &hit));
	chronon_on_change_init(&rob_occ, core, &rob);
	chronon_on_change_init(&ipc_occ, core, &ipc);

	for (i = 0; i < 6; i++) {
		in[i] = chronon_inst_start(i);
		CHECK(chronon_stage_enter(&stages, core, 10 + i, &in[i], 0));
		CHECK(chronon_stage_enter(&stages, core, 12 + i, &in[i], 1));
		CHECK(chronon_stage_enter(&stages, core, 13 + i, &in[i], 2));
		if (i % 2 == 1)
			CHECK(emit_u64_u64(core, &wakeup, 13 + i, in[i].flow, in[i - 1].flow));
		if (i == 2)
			CHECK(chronon_span_between(mem, &fill, 16, 19, 1, in[i].flow));
		if (i == 3 && chronon_span_complete(mem, &fill, 19, (uint64_t)16 - 19, 1, in[i].flow) != CHRONON_ERR_ARG) {
			printf("FAIL a complete span ending before it begins was not refused\n"); /* recorded: 1.8e19 cycles */
			fails++;
		}
		/* An error status, so chronon_last_error() says what it was (it kept an older message). */
		if (i == 3 && !strstr(chronon_last_error(), "chronon_span_complete")) {
			printf("FAIL refused complete span: last error %s\n", chronon_last_error());
			fails++;
		}
		if (i == 3 && chronon_span_between(mem, &fill, 19, 16, 1, in[i].flow) != CHRONON_ERR_ARG) {
			printf("FAIL a span between 19 and 16 was not refused\n"); /* recorded: an empty span at 16 */
			fails++;
		}
		if (i == 3 && !strstr(chronon_last_error(), "chronon_span_between")) {
			printf("FAIL refused span between 19 and 16: last error %s\n", chronon_last_error());
			fails++;
		}
		if (i < 4) {
			CHECK(chronon_stage_enter(&stages, core, 20 + i, &in[i], 3));
			CHECK(chronon_stage_retire(&stages, core, 22 + i, &in[i]));
		} else if (i == 4) {
			CHECK(emit_u64_u64(core, &miss, 20, in[3].flow, 0x400000 + i));
			CHECK(chronon_stage_squash(&stages, core, 21, &in[i]));
		}
		CHECK(chronon_on_change_sample(&rob_occ, 10 + i, i < 3 ? (int64_t)i : 3));
	}
	CHECK(chronon_on_change_sample_f64(&ipc_occ, 30, 1.5));
	CHECK(chronon_on_change_sample_f64(&ipc_occ, 31, 1.5));
	CHECK(chronon_on_change_sample_f64(&ipc_occ, 32, 0.75));
	CHECK(emit_req_begin(mem, &req.begin, 100, 7, 0, read, 64));
	CHECK(chronon_async_begin(mem, &sub, 101, 8, 7));
	CHECK(emit_tag(mem, &tag, 102, 7, hit));
	CHECK(chronon_async_end(mem, &sub, 105, 8));
	CHECK(chronon_async_end(mem, &req, 110, 7));
	CHECK(chronon_close(tr));
	CHECK(chronon_get_stats(tr, &stats, NULL, 0));
	if (stats.symbols != 2 || stats.symbols_overflowed != 0) {
		printf("FAIL stats: %llu symbols, %llu overflowed\n", (unsigned long long)stats.symbols,
		       (unsigned long long)stats.symbols_overflowed);
		fails++;
	}
	chronon_destroy(tr);
	return fails;
}
`

// modelCpp is the scenario in C++.
const modelCpp = `#include <chronon.hpp>
#include <cstdio>
#include <cstring>
namespace {
enum Stage { fetch, decode, execute, commit };
const chronon::Stages stages({"fetch", "decode", "execute", "commit"});
const chronon::Counter rob("rob");
const chronon::FloatCounter ipc("ipc");
const chronon::Format<chronon::Flow, chronon::Depends> wakeup(CHRONON_TEXT("wakeup flow={} producer={}"));
const chronon::Span fill("l1d.fill");
const chronon::AsyncSpan<chronon::Symbol, uint32_t> req("req", CHRONON_TEXT("what={} bytes={}"));
const chronon::AsyncSpan<> sub("sub");
const chronon::Format<chronon::SpanId, chronon::Symbol> tag(CHRONON_TEXT("tag req={} what={}"));
const chronon::Format<chronon::Flow, uint64_t> miss(CHRONON_TEXT("mispredict flow={} ip=0x{:x}"));
int fails;
void want(const char *what, chronon::Status got) {
	if (got != chronon::Status::ok) {
		std::printf("FAIL %s: %s: %s\n", what, chronon::to_string(got), chronon::last_error());
		fails++;
	}
}
} // namespace
#define CHECK(call) want(#call, (call))
int main(int, char **argv) {
	chronon::Tracer tr(argv[1], chronon::Options().auto_metadata(false).simulation_name("model").time_base(chronon::hz(2000000000)));
	chronon::Unit core = tr.unit("core"), mem = tr.unit("mem");
	CHECK(tr.set_time_base(mem, chronon::nanoseconds()));
	chronon::Symbol read = tr.intern("ReadReq"), hit = tr.intern(std::string_view("hit and more", 3));
	chronon::OnChange<int64_t> rob_occ = rob.on_change(core);
	chronon::OnChange<double> ipc_occ = ipc.on_change(core);
	chronon::Inst in[6];
	for (uint64_t i = 0; i < 6; i++) {
		in[i] = stages.start(i);
		CHECK(stages.enter(core, 10 + i, in[i], fetch));
		CHECK(stages.enter(core, 12 + i, in[i], decode));
		CHECK(stages.enter(core, 13 + i, in[i], execute));
		if (i % 2 == 1)
			CHECK(wakeup.emit(core, 13 + i, in[i].flow(), in[i - 1].flow()));
		if (i == 2)
			CHECK(fill.between(mem, 16, 19, chronon::Lane(1), in[i].flow()));
		if (i == 3 && fill.complete(mem, 19, uint64_t(16) - 19, chronon::Lane(1), in[i].flow()) != chronon::Status::err_arg) {
			std::printf("FAIL a complete span ending before it begins was not refused\n");
			fails++;
		}
		if (i == 3 && !std::strstr(chronon::last_error(), "complete")) {
			std::printf("FAIL refused complete span: last error %s\n", chronon::last_error());
			fails++;
		}
		if (i == 3 && fill.between(mem, 19, 16, chronon::Lane(1), in[i].flow()) != chronon::Status::err_arg) {
			std::printf("FAIL a span between 19 and 16 was not refused\n");
			fails++;
		}
		if (i == 3 && !std::strstr(chronon::last_error(), "between")) {
			std::printf("FAIL refused span between 19 and 16: last error %s\n", chronon::last_error());
			fails++;
		}
		if (i < 4) {
			CHECK(stages.enter(core, 20 + i, in[i], commit));
			CHECK(stages.retire(core, 22 + i, in[i]));
		} else if (i == 4) {
			CHECK(miss.emit(core, 20, in[3].flow(), 0x400000 + i));
			CHECK(stages.squash(core, 21, in[i]));
		}
		CHECK(rob_occ.sample(10 + i, i < 3 ? static_cast<int64_t>(i) : 3));
	}
	CHECK(ipc_occ.sample(30, 1.5));
	CHECK(ipc_occ.sample(31, 1.5));
	CHECK(ipc_occ.sample(32, 0.75));
	CHECK(req.begin(mem, 100, 7, 0, read, 64));
	CHECK(sub.begin(mem, 101, 8, 7));
	CHECK(tag.emit(mem, 102, 7, hit));
	CHECK(sub.end(mem, 105, 8));
	CHECK(req.end(mem, 110, 7));
	CHECK(tr.close());
	chronon::Stats s = tr.stats();
	if (s.total.symbols != 2 || s.total.symbols_overflowed != 0 || !read.ok()) {
		std::printf("FAIL stats: %llu symbols\n", static_cast<unsigned long long>(s.total.symbols));
		fails++;
	}
	return fails;
}
`

// modelView is what a reader makes of one file of the scenario.
type modelView struct {
	dump, kanata []string
	formats      map[string]string // every format in the schema: text -> kind, name, roles, types, category
	used         map[string]bool   // the texts of the formats the events use
	symbols      []string
	timeBase     schema.TimeBase
	unitTimes    map[string]schema.TimeBase
}

func (tc *toolchain) modelView(t *testing.T, path string) modelView {
	t.Helper()
	tc.oracleCheck(t, path)
	r, err := mmapio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v := modelView{formats: map[string]string{}, used: map[string]bool{}, unitTimes: map[string]schema.TimeBase{}}
	var b strings.Builder
	if _, err := tracetext.WriteDump(&b, r, mmapio.Query{}, 0); err != nil {
		t.Fatal(err)
	}
	v.dump = sortedLines(b.String())
	used := map[uint32]bool{}
	for ev := range r.Events(mmapio.Query{}) {
		used[ev.FormatID] = true
	}
	for _, f := range r.Formats() {
		if used[f.ID] {
			v.used[f.Format.Format] = true
		}
		v.formats[f.Format.Format] = fmt.Sprintf("kind=%v name=%q roles=%v types=%v category=%d", f.Kind, f.Name, f.ArgRoles,
			f.ArgTypes, f.Category)
	}
	s := r.Schema()
	v.symbols = s.Symbols
	v.timeBase = s.TimeBase
	for _, u := range s.Units {
		v.unitTimes[u.Name] = u.TimeBase
	}
	if tc.reader != "" {
		k := filepath.Join(t.TempDir(), "model.kanata")
		run(t, nil, tc.reader, "export", "--format", "kanata", path, "-o", k)
		text, err := os.ReadFile(k)
		if err != nil {
			t.Fatal(err)
		}
		v.kanata = strings.Split(string(text), "\n")
	}
	return v
}

// TestModelParity runs the scenario in Go, C and C++ and compares what
// readers make of the three files.
func TestModelParity(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	goPath, cPath, cxxPath := filepath.Join(dir, "go.ctrace"), filepath.Join(dir, "c.ctrace"), filepath.Join(dir, "cpp.ctrace")
	modelGo(t, goPath)
	if out, _ := run(t, nil, tc.compileC(t, "model", modelC), cPath); strings.Contains(out, "FAIL") {
		t.Fatalf("C: %s", out)
	}
	if out, _ := run(t, nil, tc.compileCxx(t, "model", modelCpp), cxxPath); strings.Contains(out, "FAIL") {
		t.Fatalf("C++: %s", out)
	}
	// The same program builds as C++20 and without exceptions, with the
	// optimiser's warnings (-O2 -Wall -Wextra -Werror: -Wmaybe-uninitialized
	// and the like run only when code is generated) and linked.
	for _, mode := range [][]string{{"-std=c++20"}, {"-fno-exceptions"}} {
		tc.compileCxx(t, "model", modelCpp, mode...)
	}
	g := tc.modelView(t, goPath)
	// Sanity of the Go side, which the others are compared with.
	if len(g.dump) != 42 || g.timeBase != chronon.Hz(2_000_000_000) || g.unitTimes["mem"] != chronon.Nanoseconds ||
		fmt.Sprint(g.symbols) != "[ReadReq hit]" {
		t.Fatalf("Go file: %d events, time base %v, mem %v, symbols %v\n%s", len(g.dump), g.timeBase, g.unitTimes["mem"], g.symbols,
			strings.Join(g.dump, "\n"))
	}
	for _, want := range []string{"[       100] mem: req begin id=7 parent=0 what=ReadReq bytes=64", "[       102] mem: tag req=7 what=hit",
		"[        21] core: squash flow=5", "[        25] core: retire flow=4", "[        18] core: wakeup flow=6 producer=5"} {
		if !contains(g.dump, want) {
			t.Errorf("Go dump lacks %q:\n%s", want, strings.Join(g.dump, "\n"))
		}
	}
	for name, path := range map[string]string{"C": cPath, "C++": cxxPath} {
		v := tc.modelView(t, path)
		if d := firstDiff(v.dump, g.dump); d != "" {
			t.Errorf("%s dump differs from Go's: %s", name, d)
		}
		if d := firstDiff(v.kanata, g.kanata); d != "" {
			t.Errorf("%s Kanata export differs from Go's: %s", name, d)
		}
		// The Go test process's registry holds the formats of every test,
		// and a Go file's schema all of them: compare the C or C++ file's
		// formats (all it registered) with Go's of the same texts, and
		// check that the events use the same ones.
		goSame := map[string]string{}
		for text := range v.formats {
			if f, ok := g.formats[text]; ok {
				goSame[text] = f
			}
		}
		if d := firstDiff(sortedKV(v.formats), sortedKV(goSame)); d != "" {
			t.Errorf("%s formats differ from Go's: %s", name, d)
		}
		if fmt.Sprint(v.used) != fmt.Sprint(g.used) {
			t.Errorf("%s events use formats %v, Go's %v", name, v.used, g.used)
		}
		if fmt.Sprint(v.symbols) != fmt.Sprint(g.symbols) || v.timeBase != g.timeBase || fmt.Sprint(v.unitTimes) != fmt.Sprint(g.unitTimes) {
			t.Errorf("%s: symbols %v time base %v units %v; Go: %v %v %v", name, v.symbols, v.timeBase, v.unitTimes, g.symbols,
				g.timeBase, g.unitTimes)
		}
	}
	if g.kanata == nil {
		t.Log("##### trace_reader does not build: Kanata exports not compared #####")
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

func sortedKV(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+" "+v)
	}
	sort.Strings(out)
	return out
}
