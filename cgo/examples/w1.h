/* w1.h - the W1 reference workload in C, event for event the one of
 * internal/workload/w1.go (tracegen --workload w1):
 *
 *   formats, in this order: 1 = "fetch pc=0x{:x} taken={}" (UInt64, Bool)
 *                           2 = "decode uop={} srcs={} dst={}" (UInt32, UInt8, Int16)
 *   units 1..U named core{(u-1)/8}.{kind}, kind = fetch decode rename rob lsu l1d l2 dram
 *   by (u-1)%8, type name kind+"Unit"; simulation name "w1"; category 2
 *   cycle = 1000; for i in 0..N-1:
 *       if next()%3 == 0: cycle += next()%5
 *       unit = 1 + i%U
 *       i even: fetch  pc = 0x400000 + (i*4)%65536, taken = next()&1
 *       i odd:  decode uop = uint32(next()), srcs = uint8(next()), dst = int16(next())
 *
 * next() is SplitMix64 (internal/workload/splitmix.go), seeded with the
 * seed (tracegen's default 1). Used by w1gen.c and cbench.c. */
#ifndef W1_H
#define W1_H

#include <stdio.h>

#include "chronon.h"

#define W1_CATEGORY 2

/* The typed emitters of W1's two signatures (chronon.h). */
CHRONON_DEFINE_EMIT2(w1_emit_fetch, u64, bool)
CHRONON_DEFINE_EMIT3(w1_emit_decode, u32, u8, i16)

typedef struct w1_formats {
	chronon_format fetch, decode;
} w1_formats;

/* w1_state is the PRNG state and current cycle of a W1 stream. */
typedef struct w1_state {
	uint64_t rng;
	uint64_t cycle;
} w1_state;

static inline w1_state w1_start(uint64_t seed) {
	w1_state s;
	s.rng = seed;
	s.cycle = 1000;
	return s;
}

/* w1_next is SplitMix64: state += golden gamma, then the mix. */
static inline uint64_t w1_next(uint64_t *state) {
	uint64_t z;
	*state += UINT64_C(0x9E3779B97F4A7C15);
	z = *state;
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* w1_register registers the two formats (first: they get ids 1 and 2 in a
 * process that registers nothing before, as in tracegen). */
static chronon_status w1_register(w1_formats *w) {
	static const uint8_t fetch_types[] = {CHRONON_UINT64, CHRONON_BOOL};
	static const uint8_t decode_types[] = {CHRONON_UINT32, CHRONON_UINT8, CHRONON_INT16};
	chronon_format_options o = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_status st;
	o.category = W1_CATEGORY;
	o.file = __FILE__;
	o.line = __LINE__;
	st = chronon_format_register("fetch pc=0x{:x} taken={}", fetch_types, 2, &o, &w->fetch);
	if (st != CHRONON_OK)
		return st;
	return chronon_format_register("decode uop={} srcs={} dst={}", decode_types, 3, &o, &w->decode);
}

/* w1_units creates units 1..n with W1's names and type names. */
static chronon_status w1_units(chronon_tracer t, chronon_unit **units, int n) {
	static const char *const kinds[8] = {"fetch", "decode", "rename", "rob", "lsu", "l1d", "l2", "dram"};
	chronon_unit_options o = CHRONON_UNIT_OPTIONS_INIT;
	char name[64], type_name[64];
	chronon_status st;
	int i;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "core%d.%s", i / 8, kinds[i % 8]);
		snprintf(type_name, sizeof type_name, "%sUnit", kinds[i % 8]);
		o.id = (uint16_t)(i + 1);
		st = chronon_unit_create(t, name, type_name, &o, &units[i]);
		if (st != CHRONON_OK)
			return st;
	}
	return CHRONON_OK;
}

/* w1_emit emits events [from, to) of the stream; the PRNG state and cycle
 * carry over in s. It returns how many emits did not return CHRONON_OK
 * (none under the Block policy). */
static uint64_t w1_emit(const w1_formats *w, chronon_unit **units, uint64_t nu, w1_state *s, uint64_t from,
                        uint64_t to) {
	uint64_t r = s->rng, cycle = s->cycle, i, failed = 0;
	for (i = from; i < to; i++) {
		chronon_unit *u;
		chronon_status st;
		if (w1_next(&r) % 3 == 0)
			cycle += w1_next(&r) % 5;
		u = units[i % nu];
		if (i % 2 == 0) {
			uint64_t pc = 0x400000 + (i * 4) % 65536;
			st = w1_emit_fetch(u, &w->fetch, cycle, pc, (w1_next(&r) & 1) != 0);
		} else {
			/* Evaluation order matters: uop, then srcs, then dst. */
			uint32_t uop = (uint32_t)w1_next(&r);
			uint8_t srcs = (uint8_t)w1_next(&r);
			int16_t dst = (int16_t)(uint16_t)w1_next(&r);
			st = w1_emit_decode(u, &w->decode, cycle, uop, srcs, dst);
		}
		failed += st != CHRONON_OK;
	}
	s->rng = r;
	s->cycle = cycle;
	return failed;
}

#endif
