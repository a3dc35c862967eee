/* example_sim.c - a toy two-core simulator traced through the C API.
 *
 *   example_sim OUT.ctrace
 *
 * It shows every way to emit from C:
 *   - typed emitters (CHRONON_DEFINE_EMITn): fetch, the counter;
 *   - begin/put/commit: decode, with a string sized by chronon_str_size;
 *   - tagged arguments (chronon_emit_args): the L1D access and an event with
 *     all thirteen argument types;
 *   - a span with lane, flow and duration roles, a counter, a category
 *     disabled on one unit, and a unit flush.
 * The events are deterministic; cgo/examples/testdata/example_sim.dump is
 * what `trace_reader dump` prints for them (sorted), and the test compares.
 * Every status is checked: the program exits 1 on anything unexpected and
 * prints the tracer's statistics on success. */
#include <stdio.h>
#include <stdlib.h>

#include "chronon.h"

CHRONON_DEFINE_EMIT2(emit_fetch, u64, bool)
CHRONON_DEFINE_EMIT3(emit_span, u32, u64, u64)
CHRONON_DEFINE_EMIT1(emit_counter, i64)
CHRONON_DEFINE_EMIT1(emit_debug, u32)

static int failures;

/* want checks a status: the example is also a test. */
static void want(chronon_status got, chronon_status expected, const char *what) {
	if (got != expected) {
		fprintf(stderr, "example_sim: %s: got %s, want %s (%s)\n", what, chronon_status_string(got),
		        chronon_status_string(expected), chronon_last_error());
		failures++;
	}
}

#define CHECK(call) want((call), CHRONON_OK, #call)

typedef struct core {
	chronon_unit *fetch, *decode, *l1d;
	uint64_t pc;
} core;

static const char *const ops[] = {"add", "load", "store", "branch", "mul"};

int main(int argc, char **argv) {
	static const uint8_t t_fetch[] = {CHRONON_UINT64, CHRONON_BOOL};
	static const uint8_t t_decode[] = {CHRONON_UINT64, CHRONON_STRING, CHRONON_UINT8};
	static const uint8_t t_l1d[] = {CHRONON_STRING, CHRONON_POINTER, CHRONON_BOOL, CHRONON_UINT16};
	static const uint8_t t_span[] = {CHRONON_UINT32, CHRONON_UINT64, CHRONON_UINT64};
	static const uint8_t r_span[] = {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW, CHRONON_ROLE_DURATION};
	static const uint8_t t_counter[] = {CHRONON_INT64};
	static const uint8_t r_counter[] = {CHRONON_ROLE_VALUE};
	static const uint8_t t_debug[] = {CHRONON_UINT32};
	static const uint8_t t_all[] = {CHRONON_INT8,   CHRONON_INT16,  CHRONON_INT32,   CHRONON_INT64, CHRONON_UINT8,
	                                CHRONON_UINT16, CHRONON_UINT32, CHRONON_UINT64,  CHRONON_FLOAT, CHRONON_DOUBLE,
	                                CHRONON_POINTER, CHRONON_STRING, CHRONON_BOOL};
	chronon_format f_fetch, f_decode, f_l1d, f_span, f_counter, f_debug, f_all;
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_kv md[] = {{"cores", "2"}, {"example", "c"}};
	chronon_tracer t;
	chronon_unit *l2;
	core cores[2];
	uint64_t cat_pipe, cat_mem, cat_debug, cycle;
	chronon_unit_stats us[16];
	chronon_stats total;
	size_t i;
	int c;

	if (argc != 2) {
		fprintf(stderr, "usage: example_sim OUT.ctrace\n");
		return 2;
	}

	/* Categories and formats: once per process, before or after open. */
	CHECK(chronon_category_register("pipe", "pipeline stages", &cat_pipe));
	CHECK(chronon_category_register("mem", "memory hierarchy", &cat_mem));
	CHECK(chronon_category_register("debug", "verbose internals", &cat_debug));
	fo.file = __FILE__;
	fo.category = cat_pipe;
	fo.line = __LINE__;
	CHECK(chronon_format_register("fetch pc=0x{:x} taken={}", t_fetch, 2, &fo, &f_fetch));
	fo.line = __LINE__;
	CHECK(chronon_format_register("decode pc=0x{:x} op={} srcs={}", t_decode, 3, &fo, &f_decode));
	fo.category = cat_mem;
	fo.line = __LINE__;
	CHECK(chronon_format_register("l1d {} addr={} hit={} lat={}", t_l1d, 4, &fo, &f_l1d));
	fo.line = __LINE__;
	fo.kind = CHRONON_KIND_SPAN_COMPLETE;
	fo.roles = r_span;
	fo.name = "miss";
	CHECK(chronon_format_register("miss lane={} flow={} dur={}", t_span, 3, &fo, &f_span));
	fo.line = __LINE__;
	fo.kind = CHRONON_KIND_COUNTER;
	fo.roles = r_counter;
	fo.name = "l2.occupancy";
	CHECK(chronon_format_register("l2.occupancy={}", t_counter, 1, &fo, &f_counter));
	fo.kind = CHRONON_KIND_INSTANT;
	fo.roles = NULL;
	fo.name = NULL;
	fo.category = cat_debug;
	fo.line = __LINE__;
	CHECK(chronon_format_register("debug tick={}", t_debug, 1, &fo, &f_debug));
	fo.category = 0; /* CHRONON_CATEGORY_DEFAULT */
	fo.line = __LINE__;
	CHECK(chronon_format_register("types i8={} i16={:x} i32={} i64={:x} u8={} u16={} u32={:x} u64={} "
	                              "f={} d={} p={} s={} b={}",
	                              t_all, 13, &fo, &f_all));

	o.simulation_name = "example-c";
	o.config_hash = 0xC0FFEE;
	o.metadata = md;
	o.n_metadata = 2;
	o.block_size = 4096; /* small blocks: several per unit even in a short run */
	CHECK(chronon_open(&t, argv[1], &o));
	for (c = 0; c < 2; c++) {
		char name[32];
		snprintf(name, sizeof name, "core%d.fetch", c);
		CHECK(chronon_unit_create(t, name, "FetchUnit", NULL, &cores[c].fetch));
		snprintf(name, sizeof name, "core%d.decode", c);
		CHECK(chronon_unit_create(t, name, "DecodeUnit", NULL, &cores[c].decode));
		snprintf(name, sizeof name, "core%d.l1d", c);
		CHECK(chronon_unit_create(t, name, "L1DCache", NULL, &cores[c].l1d));
		cores[c].pc = 0x400000 + 0x1000 * (uint64_t)c;
	}
	CHECK(chronon_unit_create(t, "l2", "L2Cache", NULL, &l2));
	/* Debug events are recorded on core0's fetch unit only. */
	chronon_unit_disable(cores[1].fetch, cat_debug);

	for (cycle = 100; cycle < 400; cycle++) {
		for (c = 0; c < 2; c++) {
			core *k = &cores[c];
			uint64_t n = cycle * 2 + (uint64_t)c;
			int taken = n % 7 == 0;
			chronon_writer w;
			const char *op = ops[n % 5];

			CHECK(emit_fetch(k->fetch, &f_fetch, cycle, k->pc, taken));
			want(emit_debug(k->fetch, &f_debug, cycle, (uint32_t)n), c == 0 ? CHRONON_OK : CHRONON_DISABLED,
			     "emit_debug");

			chronon_begin(&w, k->decode, &f_decode, cycle + 1, 8 + chronon_str_size(op) + 1);
			chronon_put_u64(&w, k->pc);
			chronon_put_str(&w, op);
			chronon_put_u8(&w, (uint8_t)(n % 3));
			CHECK(chronon_commit(&w));

			if (op[0] == 'l' || op[0] == 's') {
				uintptr_t addr = 0x10000000u + (uintptr_t)((n * 64) % 4096);
				int hit = n % 4 != 0;
				chronon_arg a[4];
				a[0] = chronon_arg_str(op);
				a[1] = chronon_arg_ptr((const void *)addr);
				a[2] = chronon_arg_bool(hit);
				a[3] = chronon_arg_u16(hit ? 4 : 40);
				CHECK(chronon_emit_args(k->l1d, &f_l1d, cycle + 2, a, 4));
				if (!hit)
					CHECK(emit_span(l2, &f_span, cycle + 2, (uint32_t)c, n, 36)); /* lane: the core */
			}
			k->pc = taken ? k->pc - 0x40 : k->pc + 4;
		}
		if (cycle % 50 == 0)
			CHECK(emit_counter(l2, &f_counter, cycle, (int64_t)(cycle / 50) - 3));
	}
	/* One event with every argument type, negative values under {:x}. */
	{
		chronon_arg a[13];
		a[0] = chronon_arg_i8(-8);
		a[1] = chronon_arg_i16(-16);
		a[2] = chronon_arg_i32(-32);
		a[3] = chronon_arg_i64(-64);
		a[4] = chronon_arg_u8(200);
		a[5] = chronon_arg_u16(60000);
		a[6] = chronon_arg_u32(0xDEADBEEFu);
		a[7] = chronon_arg_u64(UINT64_C(18446744073709551615));
		a[8] = chronon_arg_f32(1.5f);
		a[9] = chronon_arg_f64(-2.25e-7);
		a[10] = chronon_arg_ptr((const void *)(uintptr_t)0x7ffd1234);
		a[11] = chronon_arg_str("hello, world");
		a[12] = chronon_arg_bool(true);
		CHECK(chronon_emit_args(l2, &f_all, 400, a, 13));
	}
	/* The producer publishes its partly filled chunk (e.g. when idle). */
	CHECK(chronon_unit_flush(l2));
	CHECK(chronon_flush(t));

	CHECK(chronon_close(t));
	CHECK(chronon_get_stats(t, &total, us, 16));
	printf("units=%zu blocks=%llu\n", total.n_units, (unsigned long long)total.blocks);
	for (i = 0; i < total.n_units && i < 16; i++) {
		printf("unit %u emitted=%llu written=%llu dropped=%llu\n", us[i].id, (unsigned long long)us[i].emitted,
		       (unsigned long long)us[i].written, (unsigned long long)us[i].dropped);
		if (us[i].emitted != us[i].written || us[i].dropped != 0) {
			fprintf(stderr, "example_sim: unit %u lost events\n", us[i].id);
			failures++;
		}
	}
	CHECK(chronon_destroy(t));
	if (failures) {
		fprintf(stderr, "example_sim: %d failures\n", failures);
		return 1;
	}
	return 0;
}
