// example_sim.cpp - a toy cache hierarchy traced through chronon.hpp.
//
//   example_sim_cpp OUT.ctrace [SCRATCH.ctrace]
//
// Formats are declared with C++ types; the argument types of the file are
// derived at compile time, and emit() takes exactly those types. The
// events are deterministic: cgo/examples/testdata/example_sim_cpp.dump is
// what `trace_reader dump` prints for them (sorted). With a second path the
// program also checks the C++ API's edges on a scratch tracer: string
// truncation as in the Go runtime, inert formats, default units, statuses.
//
// Spans, counters and flows: each L1 miss is a "miss" span (begin/end) on
// the L1, whose flow id (the miss's cycle) also marks the L2's request
// (an instant event with a chronon::Flow argument) and its "fill" span
// (complete, with a duration), so an exporter draws one arrow across the
// two units per miss; occupancy (integer) and hit_rate (double) are
// counters.
#include <chronon.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

enum class Op : uint8_t { load = 1, store = 2, prefetch = 3 };

int failures = 0;

void want(chronon::Status got, chronon::Status expected, const char *what) {
	if (got != expected) {
		std::fprintf(stderr, "example_sim_cpp: %s: got %s, want %s (%s)\n", what, chronon::to_string(got),
		             chronon::to_string(expected), chronon::last_error());
		failures++;
	}
}
#define CHECK(call) want((call), chronon::Status::ok, #call)

// The formats: static objects, registered once.
const chronon::Format<uint64_t, Op, bool> f_access("access addr=0x{:x} op={} hit={}");
const chronon::Format<const char *, std::string_view, int> f_mshr("mshr {} state={} free={}");
const chronon::Format<std::string, double> f_ratio("ratio {}={}");
const chronon::Format<const void *, unsigned long, short, signed char, float> f_line("line {} tag={:x} way={} lru={} age={}");
const chronon::Format<> f_tick("tick");
const chronon::Format<uint64_t, chronon::Flow> f_req("req addr=0x{:x} flow={}");
const chronon::Span s_miss("miss");
const chronon::Span s_fill("fill");
const chronon::Counter occupancy("occupancy"); // Counter<int64_t>
const chronon::FloatCounter hit_rate("hit_rate");

uint32_t miss_lane(uint64_t cycle) { return static_cast<uint32_t>(cycle / 4 % 2); }

int run(const char *path) {
	chronon::Tracer tr(path, chronon::Options()
	                             .simulation_name("example-cpp")
	                             .block_size(4096)
	                             .metadata("caches", "l1,l2")
	                             .config_hash(42));
	chronon::Unit l1 = tr.unit("l1d", "L1DCache");
	chronon::Unit l2 = tr.unit("l2", "L2Cache", chronon::UnitOptions().id(20));
	static const char *const states[] = {"idle", "pending", "filled"};
	for (uint64_t cycle = 1; cycle <= 200; cycle++) {
		uint64_t addr = 0x8000 + (cycle * 40) % 1024;
		Op op = cycle % 3 == 0 ? Op::store : cycle % 5 == 0 ? Op::prefetch : Op::load;
		bool hit = cycle % 4 != 0;
		CHECK(f_access.emit(l1, cycle, addr, op, hit));
		if (cycle % 4 == 3 && cycle > 3) // the miss of 3 cycles ago is served
			CHECK(s_miss.end(l1, cycle, miss_lane(cycle - 3), cycle - 3));
		if (!hit) {
			CHECK(s_miss.begin(l1, cycle, miss_lane(cycle), cycle));
			CHECK(f_mshr.emit(l1, cycle, "alloc", states[cycle % 3], static_cast<int>(8 - cycle % 8) - 1));
			CHECK(f_req.emit(l2, cycle + 1, addr, cycle));
			CHECK(s_fill.complete(l2, cycle + 1, 20 + cycle % 7, static_cast<uint32_t>(cycle % 2), cycle));
			CHECK(f_line.emit(l2, cycle + 1, reinterpret_cast<const void *>(static_cast<uintptr_t>(addr & ~63u)),
			                  static_cast<unsigned long>(addr >> 6), static_cast<short>(cycle % 8),
			                  static_cast<signed char>(-static_cast<int>(cycle % 3)), 0.5f * static_cast<float>(cycle % 5)));
		}
		if (cycle % 25 == 0) {
			CHECK(occupancy.sample(l2, cycle, static_cast<int64_t>(cycle / 25) * 3 - 10));
			CHECK(f_ratio.emit(l1, cycle, std::string("hit_rate"), 0.75 + 0.001 * static_cast<double>(cycle)));
			CHECK(hit_rate.sample(l1, cycle, 0.75 + 0.001 * static_cast<double>(cycle)));
			CHECK(f_tick.emit(l2, cycle));
		}
	}
	CHECK(s_miss.end(l1, 203, miss_lane(200), 200)); // the last miss (cycle 200)
	CHECK(l2.flush());
	CHECK(tr.close());
	chronon::Stats s = tr.stats();
	std::printf("units=%zu blocks=%llu\n", s.units.size(), static_cast<unsigned long long>(s.total.blocks));
	for (const auto &u : s.units) {
		std::printf("unit %u emitted=%llu written=%llu dropped=%llu\n", u.id, static_cast<unsigned long long>(u.emitted),
		            static_cast<unsigned long long>(u.written), static_cast<unsigned long long>(u.dropped));
		if (u.emitted != u.written || u.dropped != 0)
			failures++;
	}
	return 0;
} // ~Tracer: destroy (already closed)

// edges checks the C++ API's promises on a scratch tracer.
void edges(const char *path) {
	using chronon::Status;
	Status st;
	chronon::Tracer tr = chronon::Tracer::open(path, chronon::Options().block_size(4096).auto_metadata(false), st);
	want(st, Status::ok, "Tracer::open");
	chronon::Unit u;
	want(tr.new_unit(u, "scratch"), Status::ok, "new_unit");

	// Truncation: max_args is 4096 - 26 = 4070. Two strings and a u32: the
	// first is cut to 4070 - 4 - 1 (one byte for the second's NUL) - 1 (its
	// own NUL) = 4064 bytes, the second to 0 bytes, exactly like Go's
	// layoutStrings; an embedded NUL cuts a string_view.
	static const chronon::Format<std::string_view, const char *, uint32_t> f_long("long {} {} {}");
	std::string big(5000, 'x');
	uint32_t off_before = u.raw()->off;
	want(f_long.emit(u, 1, big, "tail", 7), Status::ok, "long emit");
	uint32_t size = u.raw()->off - off_before;
	if (size != 4096) {
		std::fprintf(stderr, "example_sim_cpp: truncated event is %u bytes, want 4096 (a whole block)\n", size);
		failures++;
	}
	static const chronon::Format<std::string_view, uint8_t> f_nul("nul {} {}");
	want(u.flush(), Status::ok, "unit flush"); // the next event starts a chunk: off is its size
	want(f_nul.emit(u, 2, std::string_view("ab\0cd", 5), 9), Status::ok, "embedded NUL");
	if (u.raw()->off != 26 + 3 + 1) {
		std::fprintf(stderr, "example_sim_cpp: embedded NUL not cut\n");
		failures++;
	}

	// A format whose registration failed (wrong placeholder count) is inert.
	auto bad = chronon::Format<int>::create("no placeholders", st);
	want(st, Status::err_arg, "Format::create with a wrong placeholder count");
	want(bad.emit(u, 3, 1), Status::disabled, "emit with an inert format");
#if CHRONON_HPP_EXCEPTIONS
	try {
		chronon::Format<int, int> thrown("one {}");
		failures++;
	} catch (const chronon::Error &e) {
		want(e.status(), Status::err_arg, "Format constructor throws");
	}
	try {
		tr.unit("scratch");
		failures++;
	} catch (const chronon::Error &e) {
		want(e.status(), Status::err_arg, "duplicate unit name throws");
	}
#endif
	// Spans, counters and flow roles: registration errors, inert objects.
	auto nameless = chronon::Span::create("", st);
	want(st, Status::err_arg, "Span::create with an empty name");
	want(nameless.begin(u, 3, 0, 1), Status::disabled, "begin of an inert Span");
	auto bad_counter = chronon::Counter<uint16_t>::create(nullptr, st);
	want(st, Status::err_arg, "Counter::create without a name");
	want(bad_counter.sample(u, 3, 1), Status::disabled, "sample of an inert Counter");
	chronon::Span bad_span = chronon::Span::create("bad {}", st); // a placeholder in the name: too many
	want(st, Status::err_arg, "Span::create with a placeholder in the name");
	want(bad_span.complete(u, 3, 1, 0), Status::disabled, "complete of a Span whose registration failed");
	chronon::Format<uint64_t, chronon::Flow>::create(
	    "lane {} flow {}", st, chronon::FormatOptions().kind(CHRONON_KIND_SPAN_BEGIN, {CHRONON_ROLE_FLOW, CHRONON_ROLE_LANE}));
	want(st, Status::err_arg, "a Flow argument given role lane");
	chronon::Format<uint64_t, chronon::Flow>::create("roles {} {}", st,
	                                                 chronon::FormatOptions().kind(CHRONON_KIND_INSTANT, {CHRONON_ROLE_LANE}));
	want(st, Status::err_arg, "one role for two arguments");
	chronon::Format<uint32_t, chronon::Flow>::create("lane {} flow {}", st,
	                                                 chronon::FormatOptions().kind(CHRONON_KIND_SPAN_BEGIN, {CHRONON_ROLE_LANE, CHRONON_ROLE_PLAIN}));
	want(st, Status::ok, "a Flow argument with kind roles");
#if CHRONON_HPP_EXCEPTIONS
	try {
		chronon::FloatCounter thrown("");
		failures++;
	} catch (const chronon::Error &e) {
		want(e.status(), Status::err_arg, "Counter constructor throws");
		if (std::strstr(e.what(), "counter name is empty") == nullptr) {
			std::fprintf(stderr, "example_sim_cpp: Counter error says %s\n", e.what());
			failures++;
		}
	}
#endif
	// The trace model's helpers: registration errors, inert objects, a
	// stage index out of range, options the library refuses.
	auto twice = chronon::Stages::create({"s.a", "s.a"}, st);
	want(st, Status::err_arg, "Stages::create with a name twice");
	chronon::Inst in = twice.start(0);
	want(twice.enter(u, 3, in, 0), Status::disabled, "enter of an inert Stages");
	want(twice.retire(u, 3, in), Status::disabled, "retire of an inert Stages");
	static const chronon::Stages pipe({"s.fetch", "s.exec"});
	want(pipe.enter(chronon::Unit(), 3, in, 1), Status::ok, "enter (on a closed unit: nothing recorded yet)");
	want(pipe.enter(u, 4, in, 2), Status::err_arg, "enter of a stage out of range");
	if (in.stage() != 1 || in.flow() != 1) {
		std::fprintf(stderr, "example_sim_cpp: a failed enter changed the instruction (stage %d flow %llu)\n", in.stage(),
		             static_cast<unsigned long long>(in.flow()));
		failures++;
	}
	want(pipe.leave(4, in), Status::closed, "leave: the stage's span goes to the unit it was entered on (closed)");
	want(pipe.leave(5, in), Status::ok, "leave when in no stage");
	auto no_task = chronon::AsyncSpan<>::create("", nullptr, st);
	want(st, Status::err_arg, "AsyncSpan::create with an empty name");
	want(no_task.begin(u, 3, 1, 0), Status::disabled, "begin of an inert AsyncSpan");
	auto miscounted = chronon::AsyncSpan<uint32_t>::create("t", "n", st);
	want(st, Status::err_arg, "AsyncSpan::create with an argument text without its placeholder");
	want(miscounted.end(u, 3, 1), Status::disabled, "end of an inert AsyncSpan");
	chronon::OnChange<int64_t> unbound;
	want(unbound.sample(3, 1), Status::disabled, "sample of a default OnChange");
	chronon::Tracer no_tracer;
	chronon::Symbol sym;
	want(no_tracer.intern("x", sym), Status::err_handle, "intern on an empty Tracer");
	if (sym.ok()) {
		std::fprintf(stderr, "example_sim_cpp: a failed intern gave symbol %u\n", sym.id);
		failures++;
	}
	want(tr.set_time_base(chronon::Unit(), chronon::picoseconds()), Status::err_handle, "set_time_base of a default Unit");
	want(tr.set_time_base(u, chronon::TimeBase{1, 0}), Status::err_arg, "set_time_base with a zero denominator");
	chronon::Tracer::open("/dev/null", chronon::Options().select("cycles=12-10"), st);
	want(st, Status::err_arg, "Options::select with a malformed selection");
	chronon::Tracer::open("/dev/null", chronon::Options().time_base(chronon::TimeBase{0, 5}), st);
	want(st, Status::err_arg, "Options::time_base with a zero numerator");
	// The same registration twice is one format; another category is another.
	static const chronon::Format<uint32_t> once("dedup {}"), again("dedup {}"),
	    other("dedup {}", chronon::FormatOptions().category(4));
	if (once.id() == 0 || again.id() != once.id() || other.id() == once.id()) {
		std::fprintf(stderr, "example_sim_cpp: identical registrations got ids %u and %u, another category %u\n", once.id(),
		             again.id(), other.id());
		failures++;
	}
	// Options::select: units outside the selection record nothing.
	{
		chronon::Tracer sel = chronon::Tracer::open((std::string(path) + ".select").c_str(),
		                                            chronon::Options().select("units=keep.*").auto_metadata(false), st);
		want(st, Status::ok, "Tracer::open with Options::select");
		chronon::Unit keep, drop;
		want(sel.new_unit(keep, "keep.a"), Status::ok, "selected unit");
		want(sel.new_unit(drop, "drop.b"), Status::ok, "unselected unit");
		want(once.emit(keep, 1, 1), Status::ok, "emit into a selected unit");
		want(once.emit(drop, 1, 1), Status::disabled, "emit into a unit outside the selection");
		want(sel.close(), Status::ok, "close the selecting tracer");
	}

	// A default Unit is closed: emitting into it is safe.
	chronon::Unit none;
	want(f_tick.emit(none, 4), Status::closed, "emit into a default Unit");
	// A default Tracer is no tracer.
	chronon::Tracer empty;
	want(empty.close(), Status::err_handle, "close of an empty Tracer");

	want(tr.close(), Status::ok, "close");
	want(tr.close(), Status::closed, "close twice");
	want(f_tick.emit(u, 5), Status::closed, "emit after close");
	chronon_unit_stats us{};
	want(tr.unit_stats(u, us), Status::ok, "unit_stats");
	if (us.written != 2 || us.dropped != 1) {
		std::fprintf(stderr, "example_sim_cpp: scratch unit written=%llu dropped=%llu, want 2 and 1\n",
		             static_cast<unsigned long long>(us.written), static_cast<unsigned long long>(us.dropped));
		failures++;
	}
	std::printf("edges checked\n");
}

} // namespace

int main(int argc, char **argv) {
	if (argc < 2 || argc > 3) {
		std::fprintf(stderr, "usage: example_sim_cpp OUT.ctrace [SCRATCH.ctrace]\n");
		return 2;
	}
	try {
		run(argv[1]);
	} catch (const chronon::Error &e) {
		std::fprintf(stderr, "example_sim_cpp: %s\n", e.what());
		return 1;
	}
	if (argc == 3)
		edges(argv[2]);
	if (failures) {
		std::fprintf(stderr, "example_sim_cpp: %d failures\n", failures);
		return 1;
	}
	return 0;
}
