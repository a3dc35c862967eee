/* misuse.c - every misuse gives a status, never a crash.
 *
 *   misuse DIR
 *
 * Each check prints "ok   <what>: <status> <last error>" or
 * "FAIL <what>: ..."; the exit status is the number of failures (capped at
 * 100). The files go into DIR; misuse.ctrace must still pass the
 * conformance oracle afterwards (the test checks it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chronon.h"

CHRONON_DEFINE_EMIT2(emit_u64_bool, u64, bool)
CHRONON_DEFINE_EMIT1(emit_u64, u64)
CHRONON_DEFINE_EMIT0(emit_none)

/* Test hook of the library (api.c): a Go function that panics. */
chronon_status chronon__selftest_panic(void);

static int failures;

static void expect(const char *what, chronon_status got, chronon_status want) {
	const char *err = got < 0 ? chronon_last_error() : "";
	if (got == want && (got >= 0 || err[0] != 0)) {
		printf("ok   %s: %s %s\n", what, chronon_status_string(got), err);
		return;
	}
	printf("FAIL %s: got %s, want %s (%s)\n", what, chronon_status_string(got), chronon_status_string(want),
	       got < 0 && err[0] == 0 ? "no error message" : err);
	failures++;
}

static void expect_true(const char *what, int cond) {
	printf("%s %s\n", cond ? "ok  " : "FAIL", what);
	failures += !cond;
}

int main(int argc, char **argv) {
	static const uint8_t t_ub[] = {CHRONON_UINT64, CHRONON_BOOL};
	static const uint8_t t_str[] = {CHRONON_STRING, CHRONON_UINT32, CHRONON_STRING};
	static const uint8_t t_bad[] = {CHRONON_UINT64, 99};
	static const uint8_t r_span[] = {CHRONON_ROLE_LANE, CHRONON_ROLE_PLAIN};
	char path[4096], path2[4096];
	chronon_tracer t, t2, none = {0}, made_up = {123456789};
	chronon_unit *u = NULL, *u2 = NULL, *tmp = NULL;
	chronon_format f, fs, got, zero, forged;
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_unit_options uo = CHRONON_UNIT_OPTIONS_INIT;
	chronon_unit_stats us;
	chronon_stats total;
	chronon_writer w;
	chronon_arg a[3];
	uint64_t mask, i, valid = 0, drops = 0;
	char *big;

	if (argc != 2) {
		fprintf(stderr, "usage: misuse DIR\n");
		return 100;
	}
	snprintf(path, sizeof path, "%s/misuse.ctrace", argv[1]);
	snprintf(path2, sizeof path2, "%s/drop.ctrace", argv[1]);

	/* ---- Opening ---- */
	expect("open: out NULL", chronon_open(NULL, path, NULL), CHRONON_ERR_ARG);
	expect("open: path NULL", chronon_open(&t, NULL, NULL), CHRONON_ERR_ARG);
	expect("open: a path that cannot be created", chronon_open(&t, "/nonexistent-dir/x/y.ctrace", NULL), CHRONON_ERR_IO);
	expect_true("open failure leaves the handle 0", t.id == 0);
	expect("open: empty path", chronon_open(&t, "", NULL), CHRONON_ERR_IO);
	o.block_size = 1000;
	expect("open: block size not a power of two", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.block_size = 0;
	o.level = 99;
	expect("open: level 99", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.level = 0;
	o.policy = 7;
	expect("open: unknown policy", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.policy = 0;
	o.ring_size = 4096;
	expect("open: ring smaller than two blocks", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.ring_size = 0;
	o.flush_interval_ns = 10; /* below 1 ms */
	expect("open: flush interval below 1 ms", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.flush_interval_ns = 0;
	o.n_metadata = 2; /* metadata NULL */
	expect("open: metadata NULL with n_metadata 2", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.n_metadata = 0;
	o.time_base.num = 1;
	expect("open: time base with a zero denominator", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.time_base.num = 0;
	o.symbol_limit = 2000000;
	expect("open: symbol limit above 2^20", chronon_open(&t, path, &o), CHRONON_ERR_ARG);
	o.symbol_limit = 0;

	/* ---- Unknown tracers ---- */
	expect("close: handle 0", chronon_close(none), CHRONON_ERR_HANDLE);
	expect("close: made-up handle", chronon_close(made_up), CHRONON_ERR_HANDLE);
	expect("flush: made-up handle", chronon_flush(made_up), CHRONON_ERR_HANDLE);
	expect("destroy: made-up handle", chronon_destroy(made_up), CHRONON_ERR_HANDLE);
	expect("unit_create: made-up handle", chronon_unit_create(made_up, "x", NULL, NULL, &tmp), CHRONON_ERR_HANDLE);
	expect("get_stats: made-up handle", chronon_get_stats(made_up, &total, NULL, 0), CHRONON_ERR_HANDLE);

	/* ---- Formats ---- */
	expect("format: text NULL", chronon_format_register(NULL, t_ub, 2, NULL, &f), CHRONON_ERR_ARG);
	expect("format: out NULL", chronon_format_register("a {} {}", t_ub, 2, NULL, NULL), CHRONON_ERR_ARG);
	expect("format: types NULL", chronon_format_register("a {} {}", NULL, 2, NULL, &f), CHRONON_ERR_ARG);
	expect("format: wrong arg count (1 placeholder, 2 types)", chronon_format_register("a {}", t_ub, 2, NULL, &f),
	       CHRONON_ERR_ARG);
	expect("format: unknown type 99", chronon_format_register("a {} {}", t_bad, 2, NULL, &f), CHRONON_ERR_ARG);
	expect("format: 300 arguments", chronon_format_register("a", t_ub, 300, NULL, &f), CHRONON_ERR_ARG);
	fo.kind = 9;
	expect("format: unknown kind", chronon_format_register("a {} {}", t_ub, 2, &fo, &f), CHRONON_ERR_ARG);
	fo.kind = CHRONON_KIND_SPAN_COMPLETE;
	fo.roles = r_span;
	expect("format: complete span without a duration", chronon_format_register("s {} {}", t_ub, 2, &fo, &f),
	       CHRONON_ERR_ARG);
	memset(&fo, 0, sizeof fo);
	fo.is_log = 1;
	fo.log_level = 7;
	expect("format: log level 7", chronon_format_register("a {} {}", t_ub, 2, &fo, &f), CHRONON_ERR_ARG);
	memset(&fo, 0, sizeof fo);
	fo.category = 4;
	expect("format: valid (u64, bool)", chronon_format_register("ok pc={:x} b={}", t_ub, 2, &fo, &f), CHRONON_OK);
	expect("format: valid (string, u32, string)",
	       chronon_format_register("s {} n={} t={}", t_str, 3, NULL, &fs), CHRONON_OK);
	expect("format_get: unknown format id 999999", chronon_format_get(999999, &got), CHRONON_ERR_FORMAT);
	expect("format_get: id 0", chronon_format_get(0, &got), CHRONON_ERR_FORMAT);
	expect("format_get: out NULL", chronon_format_get(f.id, NULL), CHRONON_ERR_ARG);
	expect("format_get: registered id", chronon_format_get(f.id, &got), CHRONON_OK);
	expect_true("format_get returns the registered format", memcmp(&got, &f, sizeof f) == 0);
	expect("category: NULL name", chronon_category_register(NULL, "d", &mask), CHRONON_ERR_ARG);
	expect("category: valid", chronon_category_register("misuse.cat", "d", &mask), CHRONON_OK);
	expect("category: name taken", chronon_category_register("misuse.cat", "d", &mask), CHRONON_ERR_ARG);

	/* ---- A tracer, units ---- */
	o.block_size = 4096;
	o.simulation_name = "misuse";
	expect("open: valid", chronon_open(&t, path, &o), CHRONON_OK);
	expect("open: a path another tracer is writing (locked)", chronon_open(&t2, path, &o), CHRONON_ERR_IO);
	expect_true("open: the locked error names the lock", strstr(chronon_last_error(), "locked") != NULL);
	expect("unit_create: name NULL", chronon_unit_create(t, NULL, NULL, NULL, &u), CHRONON_ERR_ARG);
	expect("unit_create: out NULL", chronon_unit_create(t, "u", NULL, NULL, NULL), CHRONON_ERR_ARG);
	uo.id = 7;
	expect("unit_create: valid", chronon_unit_create(t, "u", "T", &uo, &u), CHRONON_OK);
	expect("unit_create: duplicate name", chronon_unit_create(t, "u", NULL, NULL, &tmp), CHRONON_ERR_ARG);
	expect("unit_create: duplicate id", chronon_unit_create(t, "v", NULL, &uo, &tmp), CHRONON_ERR_ARG);
	uo.id = 0;
	uo.ring_size = 12345;
	expect("unit_create: bad ring size", chronon_unit_create(t, "w", NULL, &uo, &tmp), CHRONON_ERR_ARG);
	expect_true("unit id is 7", chronon_unit_id(u) == 7);
	/* The control block as Go filled it is what chronon.h reads (docs/ring.md). */
	expect_true("ring: magic CRNG, version 1", u->magic == CHRONON_RING_MAGIC && u->version == CHRONON_RING_VERSION);
	expect_true("ring: chunk_size is the block size, 4 chunks (default ring)", u->chunk_size == 4096 && u->n_chunks == 4);
	expect_true("ring: max_args = block - 26", u->max_args == 4096 - 26);
	expect_true("ring: data_off 64-aligned, after the lens",
	            u->data_off % 64 == 0 && u->data_off >= sizeof(chronon_unit) + 4 * u->n_chunks);
	expect_true("ring: handle is the control block's address", u->handle == (uint64_t)(uintptr_t)u);
	expect_true("ring: src_word is the unit id, arg_count 0", u->src_word == 7);
	expect_true("ring: Block policy, not closed, no chunk yet", u->policy == CHRONON_POLICY_BLOCK && u->flags == 0 &&
	                                                               u->has_chunk == 0 && u->lim == 0 && u->head == 0);

	/* ---- Emitting wrong ---- */
	expect("emit: valid", emit_u64_bool(u, &f, 1, 0x1000, true), CHRONON_OK);
	valid++;
	expect("emit: unit NULL", emit_u64_bool(NULL, &f, 2, 1, true), CHRONON_ERR_ARG);
	expect("emit: format NULL", emit_u64_bool(u, NULL, 2, 1, true), CHRONON_ERR_ARG);
	memset(&zero, 0, sizeof zero);
	expect("emit: zero-initialized format", emit_u64_bool(u, &zero, 2, 1, true), CHRONON_ERR_FORMAT);
	forged = f;
	forged.id = 4242;
	forged.id_cat = (forged.id_cat & ~UINT64_C(0xffffffff)) | 4242;
	expect("emit: unknown format id (a registered format altered)", emit_u64_bool(u, &forged, 2, 1, true),
	       CHRONON_ERR_FORMAT);
	expect("emit: wrong arg count (typed emitter of 1 arg)", emit_u64(u, &f, 2, 1), CHRONON_ERR_ARG);
	expect("emit: wrong arg count (typed emitter of 0 args)", emit_none(u, &f, 2), CHRONON_ERR_ARG);
	expect("emit: wrong arg types (u64, bool) for (string, u32, string)", emit_u64_bool(u, &fs, 2, 1, true),
	       CHRONON_ERR_ARG);
	a[0] = chronon_arg_u64(5);
	expect("emit_args: wrong arg count", chronon_emit_args(u, &f, 2, a, 1), CHRONON_ERR_ARG);
	a[1] = chronon_arg_u32(1);
	expect("emit_args: wrong arg type", chronon_emit_args(u, &f, 2, a, 2), CHRONON_ERR_ARG);
	expect("emit_args: args NULL", chronon_emit_args(u, &f, 2, NULL, 2), CHRONON_ERR_ARG);
	a[0] = chronon_arg_str(NULL);
	a[1] = chronon_arg_u32(1);
	a[2] = chronon_arg_str("x");
	expect("emit_args: NULL string", chronon_emit_args(u, &fs, 2, a, 3), CHRONON_ERR_ARG);
	expect("emit_args: unit NULL", chronon_emit_args(NULL, &fs, 2, a, 3), CHRONON_ERR_ARG);
	expect("emit_args: zero format", chronon_emit_args(u, &zero, 2, a, 0), CHRONON_ERR_FORMAT);
	expect("begin: writer NULL", chronon_begin(NULL, u, &f, 2, 9), CHRONON_ERR_ARG);
	expect("begin: args_size 8 for a 9-byte format", chronon_begin(&w, u, &f, 2, 8), CHRONON_ERR_ARG);
	chronon_put_u64(&w, 1); /* harmless after a failed begin */
	expect("commit after a failed begin returns begin's status", chronon_commit(&w), CHRONON_ERR_ARG);
	expect("begin: valid", chronon_begin(&w, u, &f, 2, 9), CHRONON_OK);
	chronon_put_u64(&w, 1); /* the bool is missing */
	expect("commit: too few bytes put (event taken back)", chronon_commit(&w), CHRONON_ERR_ARG);
	chronon_begin(&w, u, &f, 2, 9);
	chronon_put_u64(&w, 1);
	chronon_put_u64(&w, 2); /* does not fit */
	expect("commit: too many bytes put (event taken back)", chronon_commit(&w), CHRONON_ERR_ARG);
	chronon_begin(&w, u, &fs, 2, 1 + 4 + 1);
	chronon_put_str(&w, NULL);
	expect("commit: NULL string", chronon_commit(&w), CHRONON_ERR_ARG);
	expect("begin: string format, args_size too small", chronon_begin(&w, u, &fs, 2, 5), CHRONON_ERR_ARG);
	expect("begin: string format, args_size > max_args", chronon_begin(&w, u, &fs, 2, 5000), CHRONON_ERR_ARG);
	expect("begin: string format, args_size > 65535", chronon_begin(&w, u, &fs, 2, 70000), CHRONON_ERR_ARG);
	chronon_begin(&w, u, &fs, 2, chronon_str_size("abc") + 4 + chronon_str_size(""));
	chronon_put_str(&w, "abc");
	chronon_put_u32(&w, 3);
	chronon_put_str(&w, "");
	expect("begin/put/commit: valid with strings", chronon_commit(&w), CHRONON_OK);
	valid++;
	/* A string longer than the block: chronon_emit_args truncates it like Go. */
	big = (char *)malloc(10000);
	memset(big, 'y', 9999);
	big[9999] = 0;
	a[0] = chronon_arg_str(big);
	a[1] = chronon_arg_u32(9);
	a[2] = chronon_arg_str("end");
	expect("emit_args: string longer than a block is truncated", chronon_emit_args(u, &fs, 3, a, 3), CHRONON_OK);
	valid++;
	free(big);
	chronon_unit_disable(u, 4);
	expect("emit: disabled category", emit_u64_bool(u, &f, 4, 1, true), CHRONON_DISABLED);
	expect("begin: disabled category", chronon_begin(&w, u, &f, 4, 9), CHRONON_DISABLED);
	expect("commit after disabled begin", chronon_commit(&w), CHRONON_DISABLED);
	chronon_unit_enable(u, 4);
	expect("unit_flush: NULL", chronon_unit_flush(NULL), CHRONON_ERR_ARG);
	expect("unit_prefault: NULL", chronon_unit_prefault(NULL), CHRONON_ERR_ARG);
	expect("unit_prefault: the always-closed unit", chronon_unit_prefault(&chronon__dead_unit), CHRONON_OK);
	expect("emit into the always-closed unit", emit_u64_bool(&chronon__dead_unit, &f, 4, 1, true), CHRONON_CLOSED);
	expect("unit_prefault: valid", chronon_unit_prefault(u), CHRONON_OK);
	expect("get_stats: out NULL", chronon_get_stats(t, NULL, NULL, 0), CHRONON_ERR_ARG);
	expect("get_stats: units NULL with cap 4", chronon_get_stats(t, &total, NULL, 4), CHRONON_ERR_ARG);
	expect("get_unit_stats: unit NULL", chronon_get_unit_stats(t, NULL, &us), CHRONON_ERR_ARG);
	expect("Go panic becomes a status", chronon__selftest_panic(), CHRONON_ERR_INTERNAL);
	expect_true("the panic's message says so", strstr(chronon_last_error(), "panic") != NULL);

	/* ---- The trace model's helpers ---- */
	{
		static const char *const names[] = {"m.fetch", "m.exec"}, *const dup[] = {"m.a", "m.a"}, *const unnamed[] = {"m.a", NULL};
		static const uint8_t t_u32[] = {CHRONON_UINT32}, r_lane[] = {CHRONON_ROLE_LANE};
		chronon_span sp;
		chronon_async as, as1;
		chronon_stages st;
		chronon_format cnt, dcnt;
		chronon_format_options mo = CHRONON_FORMAT_OPTIONS_INIT;
		chronon_inst in;
		chronon_time_base zero_den = {1, 0};
		uint32_t sym = 0;
		expect("intern: string NULL", chronon_intern(t, NULL, &sym), CHRONON_ERR_ARG);
		expect("intern: sym NULL", chronon_intern(t, "x", NULL), CHRONON_ERR_ARG);
		expect("intern: made-up tracer", chronon_intern(made_up, "x", &sym), CHRONON_ERR_HANDLE);
		expect_true("intern: a failed intern gives the overflow symbol", sym == CHRONON_SYMBOL_OVERFLOW);
		expect("intern: valid", chronon_intern(t, "x", &sym), CHRONON_OK);
		expect_true("intern: the first symbol is 0", sym == 0);
		expect("unit_set_time_base: unit NULL", chronon_unit_set_time_base(t, NULL, chronon_picoseconds()), CHRONON_ERR_ARG);
		expect("unit_set_time_base: zero denominator", chronon_unit_set_time_base(t, u, zero_den), CHRONON_ERR_ARG);
		expect("unit_set_time_base: not a unit", chronon_unit_set_time_base(t, &chronon__dead_unit, chronon_picoseconds()),
		       CHRONON_ERR_HANDLE);
		expect("unit_set_time_base: made-up tracer", chronon_unit_set_time_base(made_up, u, chronon_picoseconds()),
		       CHRONON_ERR_HANDLE);
		expect("unit_set_time_base: valid", chronon_unit_set_time_base(t, u, chronon_hz(3000000000u)), CHRONON_OK);
		expect("span_register: name NULL", chronon_span_register(NULL, NULL, &sp), CHRONON_ERR_ARG);
		expect("span_register: empty name", chronon_span_register("", NULL, &sp), CHRONON_ERR_ARG);
		expect("span_register: out NULL", chronon_span_register("m.s", NULL, NULL), CHRONON_ERR_ARG);
		expect("span_register: a name with a placeholder", chronon_span_register("m{x}", NULL, &sp), CHRONON_ERR_ARG);
		expect("span emit after a failed registration", chronon_span_begin(u, &sp, 1, 0, 0), CHRONON_ERR_FORMAT);
		expect("counter_register: string values", chronon_counter_register("m.c", CHRONON_STRING, NULL, &cnt), CHRONON_ERR_ARG);
		expect("counter_register: bool values", chronon_counter_register("m.c", CHRONON_BOOL, NULL, &cnt), CHRONON_ERR_ARG);
		expect("counter_register: valid", chronon_counter_register("m.c", CHRONON_INT64, NULL, &cnt), CHRONON_OK);
		expect("counter_register: double", chronon_counter_register("m.d", CHRONON_DOUBLE, NULL, &dcnt), CHRONON_OK);
		expect("counter_sample: an int sample of a double counter", chronon_counter_sample(u, &dcnt, 1, 1), CHRONON_ERR_ARG);
		expect("counter_sample_f64: a double sample of an int counter", chronon_counter_sample_f64(u, &cnt, 1, 1.0),
		       CHRONON_ERR_ARG);
		expect("async_register: arguments without a text", chronon_async_register("m.t", NULL, t_u32, 1, NULL, &as),
		       CHRONON_ERR_ARG);
		expect("async_register: a text without a placeholder", chronon_async_register("m.t", "n", t_u32, 1, NULL, &as),
		       CHRONON_ERR_ARG);
		mo.roles = r_lane;
		expect("async_register: a lane argument", chronon_async_register("m.t", "n={}", t_u32, 1, &mo, &as), CHRONON_ERR_ARG);
		expect("async_register: valid, one argument", chronon_async_register("m.t", "n={}", t_u32, 1, NULL, &as1), CHRONON_OK);
		expect("async_begin: a span whose begin has an argument", chronon_async_begin(u, &as1, 1, 1, 0), CHRONON_ERR_ARG);
		expect("stages_register: no names", chronon_stages_register(names, 0, NULL, &st), CHRONON_ERR_ARG);
		expect("stages_register: a name twice", chronon_stages_register(dup, 2, NULL, &st), CHRONON_ERR_ARG);
		expect("stages_register: a NULL name", chronon_stages_register(unnamed, 2, NULL, &st), CHRONON_ERR_ARG);
		expect("stages_register: valid", chronon_stages_register(names, 2, NULL, &st), CHRONON_OK);
		in = chronon_inst_start(0);
		expect("stage_enter: valid", chronon_stage_enter(&st, u, 5, &in, 1), CHRONON_OK);
		expect("stage_enter: index out of range", chronon_stage_enter(&st, u, 6, &in, 2), CHRONON_ERR_ARG);
		expect_true("stage_enter out of range leaves the instruction as it was", in.stage == 1 && in.since == 5 && in.flow == 1);
		expect("stage_leave", chronon_stage_leave(&st, 7, &in), CHRONON_OK);
		valid++;
		expect("stage_leave: in no stage", chronon_stage_leave(&st, 8, &in), CHRONON_OK);
	}

	/* ---- A second tracer, Drop policy, a tiny ring ---- */
	memset(&o, 0, sizeof o);
	o.block_size = 4096;
	o.ring_size = 8192;
	o.policy = CHRONON_POLICY_DROP;
	o.compression_workers = 1;
	o.symbol_limit = 2;
	expect("open: drop policy", chronon_open(&t2, path2, &o), CHRONON_OK);
	{
		uint32_t s1 = 9, s2 = 9, s3 = 9, s4 = 9, again = 9;
		char long_string[1100];
		memset(long_string, 'z', sizeof long_string - 1);
		long_string[sizeof long_string - 1] = 0;
		expect("intern: a string longer than 1024 bytes", chronon_intern(t2, long_string, &s4), CHRONON_OK);
		expect("intern: first", chronon_intern(t2, "first", &s1), CHRONON_OK);
		expect("intern: second", chronon_intern(t2, "second", &s2), CHRONON_OK);
		expect("intern: third, beyond the limit of 2", chronon_intern(t2, "third", &s3), CHRONON_OK);
		expect("intern: first again", chronon_intern(t2, "first", &again), CHRONON_OK);
		expect_true("intern: symbols 0 and 1, then the overflow symbol", s1 == 0 && s2 == 1 && again == 0 &&
		                                                                     s3 == CHRONON_SYMBOL_OVERFLOW &&
		                                                                     s4 == CHRONON_SYMBOL_OVERFLOW);
		expect("get_stats: symbols", chronon_get_stats(t2, &total, NULL, 0), CHRONON_OK);
		expect_true("stats: 2 symbols, 2 overflowed", total.symbols == 2 && total.symbols_overflowed == 2);
	}
	expect("unit_create: drop unit", chronon_unit_create(t2, "d", NULL, NULL, &u2), CHRONON_OK);
	expect("get_unit_stats: unit of another tracer", chronon_get_unit_stats(t, u2, &us), CHRONON_ERR_HANDLE);
	for (i = 0; i < 2000000; i++) {
		chronon_status s = emit_u64_bool(u2, &f, i, i, true);
		if (s == CHRONON_DROPPED)
			drops++;
		else if (s != CHRONON_OK)
			expect("emit under the drop policy", s, CHRONON_OK);
	}
	expect("close: drop tracer", chronon_close(t2), CHRONON_OK);
	expect("get_unit_stats: drop unit", chronon_get_unit_stats(t2, u2, &us), CHRONON_OK);
	printf("info drop policy: %llu of 2000000 dropped, %llu written\n", (unsigned long long)drops,
	       (unsigned long long)us.written);
	expect_true("drop policy: some events dropped with a 2-chunk ring", drops > 0);
	expect_true("drop policy: CHRONON_DROPPED count == stats dropped", us.dropped == drops);
	expect_true("drop policy: written + dropped == emitted == 2000000",
	            us.written + us.dropped == 2000000 && us.emitted == 2000000);
	expect("destroy: drop tracer", chronon_destroy(t2), CHRONON_OK);

	/* ---- Closing, and after ---- */
	expect("flush: valid", chronon_flush(t), CHRONON_OK);
	expect("sync: valid", chronon_sync(t), CHRONON_OK);
	expect("tracer_error: no I/O error", chronon_tracer_error(t), CHRONON_OK);
	expect("tracer_error: made-up handle", chronon_tracer_error(made_up), CHRONON_ERR_HANDLE);
	expect("close: valid", chronon_close(t), CHRONON_OK);
	expect("close twice", chronon_close(t), CHRONON_CLOSED);
	expect("flush after close", chronon_flush(t), CHRONON_CLOSED);
	expect("sync after close", chronon_sync(t), CHRONON_CLOSED);
	expect("emit after close", emit_u64_bool(u, &f, 9, 1, true), CHRONON_CLOSED);
	expect("emit_args after close", chronon_emit_args(u, &fs, 9, a, 3), CHRONON_CLOSED);
	expect("begin after close", chronon_begin(&w, u, &f, 9, 9), CHRONON_CLOSED);
	expect("unit_flush after close", chronon_unit_flush(u), CHRONON_OK);
	expect("unit_create after close", chronon_unit_create(t, "late", NULL, NULL, &tmp), CHRONON_CLOSED);
	expect("get_unit_stats after close", chronon_get_unit_stats(t, u, &us), CHRONON_OK);
	printf("info unit u: emitted=%llu written=%llu dropped=%llu\n", (unsigned long long)us.emitted,
	       (unsigned long long)us.written, (unsigned long long)us.dropped);
	expect_true("only the valid events were written", us.written == valid);
	expect_true("the three emits after close counted as dropped", us.dropped == 3);
	expect("destroy", chronon_destroy(t), CHRONON_OK);
	expect("destroy twice", chronon_destroy(t), CHRONON_ERR_HANDLE);
	expect("close after destroy", chronon_close(t), CHRONON_ERR_HANDLE);
	expect("get_stats after destroy", chronon_get_stats(t, &total, NULL, 0), CHRONON_ERR_HANDLE);

	printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures > 100 ? 100 : failures;
}
