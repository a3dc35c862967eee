/*
 * chronon.h - the C API of Chronon in Go (libchronon).
 *
 * Chronon records what every unit of a cycle-accurate simulator did into a
 * .ctrace v1.1 file (docs/format.md), the same files the Go runtime writes.
 * This header is C99 (plus the GCC/Clang __atomic builtins) and C++11
 * compatible; chronon.hpp builds a typed C++17 API on it.
 *
 * THE SHAPE OF THE LIBRARY
 *
 *   Registration, flush, close and statistics are library functions: they
 *   call into the Go runtime (100 to 200 ns each), which is fine because
 *   they are rare. Emitting is not: the emit functions below are static
 *   inline and write the event straight into the unit's ring buffer, which
 *   the library maps outside the Go heap and shares with the Go consumer
 *   (compression and file writing run on Go goroutines). An emit that fits
 *   in the current chunk is the format check, the mask and window tests, a
 *   bounds test and the stores of the event and of the new offset (a typed
 *   emitter of (u64, bool): 26 instructions with gcc -O2 on x86-64); once
 *   per chunk (one block, 128 KiB by default) it calls chronon__reserve, a C
 *   function of the library, to publish the chunk and take the next one.
 *   Only when a ring is full under the Block policy does that C function
 *   wait: first in C (sleeping and polling, a few ms at most), then, for a
 *   long wait, in Go (cabi.WaitForRoom, the only call the emit path
 *   makes into Go). The ring protocol is docs/ring.md; the control block
 *   below is its exact layout (the _Static_asserts check every offset,
 *   chronon/ring_layout_test.go checks the Go side).
 *
 * LIFETIMES
 *
 *   formats   process-wide and permanent, like the Go runtime's registry:
 *             register them once (at start-up), use them with every tracer.
 *             A chronon_format is a small value: copy it freely.
 *   tracers   chronon_open .. chronon_close .. chronon_destroy. A tracer
 *             handle is a number, never reused: any call on a closed or
 *             destroyed tracer returns a status, never crashes.
 *   units     created from a tracer; a chronon_unit* points at the unit's
 *             ring, which stays mapped after chronon_close (an emit after
 *             close finds "closed", returns CHRONON_CLOSED and is counted as
 *             dropped) and is unmapped by chronon_destroy. Do not touch a
 *             unit after chronon_destroy of its tracer.
 *
 * THREADS
 *
 *   - One thread emits into a unit at a time (the unit's producer). Several
 *     threads may each own units of the same tracer. A unit may move to
 *     another thread if the hand-over synchronizes (mutex, join, ...).
 *   - chronon_unit_flush runs on the unit's producer thread.
 *   - chronon_flush, chronon_sync and chronon_close seal the units' partly
 *     filled chunks on their producers' behalf, so they must not run while
 *     any emit is in flight: call them after the producer threads stopped or
 *     reached a barrier (pthread_join, pthread_barrier_wait, a mutex).
 *   - Everything else may be called from any thread at any time:
 *     registration, unit creation, masks, statistics, errors.
 *
 * STATUSES
 *
 *   Every function returns a chronon_status. Zero is success; positive
 *   values say why an event was not recorded (not errors: the mask disabled
 *   it, the Drop policy dropped it, the tracer is closed); negative values
 *   are errors, and chronon_last_error() then describes the failure. No
 *   function aborts the process, and Go panics never cross into C (they
 *   become CHRONON_ERR_INTERNAL).
 *
 * PLATFORM: 64-bit little-endian (x86-64, arm64), GCC or Clang.
 */
#ifndef CHRONON_H
#define CHRONON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#if !defined(__GNUC__)
#error "chronon.h needs GCC or Clang: the emit path uses the __atomic builtins"
#endif
#if __SIZEOF_POINTER__ != 8 || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "chronon.h supports 64-bit little-endian targets only (the ring and the file are little-endian)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CHRONON_VERSION "0.1.0"

/* ------------------------------------------------------------------------
 * Statuses
 * ------------------------------------------------------------------------ */

typedef enum chronon_status {
	CHRONON_OK = 0,
	/* Outcomes: the call was valid but the event was not recorded. */
	CHRONON_DISABLED = 1, /* the unit's mask disables the format's category, or the cycle
	                         lies outside the record-time window (CHRONON_TRACE, select) */
	CHRONON_DROPPED = 2,  /* ring full under the Drop policy; counted in the unit's drops */
	CHRONON_CLOSED = 3,   /* the tracer is closed (emits are counted as dropped);
	                         also: close, flush or unit creation on a closed tracer */
	/* Errors: chronon_last_error() says more. */
	CHRONON_ERR_ARG = -1,      /* bad argument: NULL pointer, invalid option, wrong
	                              argument count, type or size, event too large */
	CHRONON_ERR_HANDLE = -2,   /* unknown tracer (never opened, or destroyed) or unit */
	CHRONON_ERR_FORMAT = -3,   /* not a registered format, or an unknown format id */
	CHRONON_ERR_IO = -4,       /* the file could not be created or written */
	CHRONON_ERR_INTERNAL = -5  /* a bug in the library (a Go panic, recovered) */
} chronon_status;

/* chronon_status_string names a status ("CHRONON_OK", ...). */
const char *chronon_status_string(chronon_status s);

/* chronon_last_error returns the message of the last error status returned
 * on the calling thread ("" if none). Like errno, success does not clear it.
 * The text stays valid until the thread's next failing call. */
const char *chronon_last_error(void);

/* chronon_version returns the library version, CHRONON_VERSION when the
 * header and the library match. */
const char *chronon_version(void);

/* ------------------------------------------------------------------------
 * Argument types, kinds, roles, policies (the file's enums)
 * ------------------------------------------------------------------------ */

/* Argument types: the values of the file's ArgType enum (docs/format.md). */
typedef enum chronon_arg_type {
	CHRONON_INT8 = 1,
	CHRONON_INT16 = 2,
	CHRONON_INT32 = 3,
	CHRONON_INT64 = 4,
	CHRONON_UINT8 = 5,
	CHRONON_UINT16 = 6,
	CHRONON_UINT32 = 7,
	CHRONON_UINT64 = 8,
	CHRONON_FLOAT = 9,    /* 4 bytes */
	CHRONON_DOUBLE = 10,  /* 8 bytes */
	CHRONON_POINTER = 11, /* 8 bytes, printed 0x%lx */
	CHRONON_STRING = 12,  /* NUL-terminated bytes */
	CHRONON_BOOL = 13     /* 1 byte */
} chronon_arg_type;

/* chronon_arg_size is the encoded size of a fixed-size type (0 for strings
 * and unknown types). */
static inline uint32_t chronon_arg_size(int type) {
	static const uint8_t sizes[14] = {0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 0, 1};
	return type >= 0 && type < 14 ? sizes[type] : 0;
}

/* What a format's events mean (FormatEntry.kind, docs/format.md): exporters
 * draw spans, counters, instructions and task trees; readers print every
 * event as text (the original C++ reader too: it ignores kinds). What each
 * kind needs of its arguments' roles is checked at registration, as in Go. */
enum {
	CHRONON_KIND_INSTANT = 0,
	CHRONON_KIND_SPAN_BEGIN = 1,    /* opens a span on (unit, lane) */
	CHRONON_KIND_SPAN_END = 2,      /* closes the innermost span of (unit, lane) */
	CHRONON_KIND_SPAN_COMPLETE = 3, /* a span of known length: one duration argument */
	CHRONON_KIND_COUNTER = 4,       /* a sample: one value argument */
	CHRONON_KIND_FLUSH = 5,         /* the instruction of its flow argument was squashed */
	CHRONON_KIND_ASYNC_BEGIN = 6,   /* opens the span of its id argument on the unit (tasks) */
	CHRONON_KIND_ASYNC_END = 7,     /* closes it */
	CHRONON_KIND_RETIRE = 8         /* the instruction of its flow argument retired */
};

/* Roles of arguments (FormatEntry.arg_roles). A lane is a slot of a unit
 * where spans nest; a flow id links one instruction's events across units
 * (0: none); complete spans have one duration argument, counters one value;
 * depends is the flow of an instruction the event's flow waits for; id names
 * an async span (on an instant: the open span of the unit the event belongs
 * to); parent is the id of the span that started this one (0: none); a
 * symbol is a uint32 from chronon_intern, printed as its string. At most one
 * argument per role, except symbols. */
enum {
	CHRONON_ROLE_PLAIN = 0,
	CHRONON_ROLE_LANE = 1,
	CHRONON_ROLE_FLOW = 2,
	CHRONON_ROLE_DURATION = 3,
	CHRONON_ROLE_VALUE = 4,
	CHRONON_ROLE_DEPENDS = 5,
	CHRONON_ROLE_ID = 6,
	CHRONON_ROLE_PARENT = 7,
	CHRONON_ROLE_SYMBOL = 8
};

/* Backpressure policies: what an emit does when its unit's ring is full. */
enum {
	CHRONON_POLICY_BLOCK = 0, /* wait for the writer: nothing is lost (default) */
	CHRONON_POLICY_DROP = 1   /* never wait: drop the event, count it */
};

#define CHRONON_LEVEL_NONE (-1)          /* chronon_options.level: store blocks raw */
#define CHRONON_CATEGORY_DEFAULT UINT64_C(1)

/* ------------------------------------------------------------------------
 * The unit ring control block (docs/ring.md). ABI: do not reorder.
 *
 * A chronon_unit* is the address of a unit's ring: this 256-byte control
 * block, then the chunk lengths, then the chunks. The fields are public only
 * because the inline emit path reads them; programs use the functions below
 * and never write a field. "producer" fields belong to the thread that
 * emits into the unit; the consumer (Go) writes tail, lim (0 only) and
 * flags. Atomic fields are accessed only with __atomic builtins, with the
 * memory orders of docs/ring.md.
 * ------------------------------------------------------------------------ */

typedef struct chronon_unit {
	uint64_t head;        /*   0 chunks sealed; producer, release store */
	uint8_t pad0_[56];    /*   8 head and tail on separate cache lines */
	uint64_t tail;        /*  64 chunks released; consumer, release store */
	uint8_t pad1_[56];    /*  72 */
	uint64_t mask;        /* 128 category enable mask; anyone, relaxed */
	uint32_t lim;         /* 136 bytes the producer may fill; consumer may store 0 (relaxed) */
	uint32_t off;         /* 140 write offset in the current chunk; producer */
	uint8_t *chunk;       /* 144 current chunk (in the data area); producer */
	uint64_t head_local;  /* 152 producer's copy of head */
	uint32_t has_chunk;   /* 160 the chunk at head_local is acquired; producer */
	uint32_t flags;       /* 164 bit 0: tracer closed; consumer */
	uint64_t dropped;     /* 168 events dropped; producer, relaxed add */
	uint64_t waits;       /* 176 times the producer waited; relaxed add */
	uint64_t src_word;    /* 184 source_id as record bytes 16..24 want it (arg_count 0) */
	uint32_t chunk_size;  /* 192 bytes per chunk = the tracer's block size */
	uint32_t n_chunks;    /* 196 a power of two, >= 2 */
	uint32_t max_args;    /* 200 largest args area of one event */
	uint32_t policy;      /* 204 CHRONON_POLICY_* */
	uint64_t data_off;    /* 208 offset of chunk 0 from the control block */
	uint64_t handle;      /* 216 opaque value passed back when the producer waits */
	uint32_t magic;       /* 224 CHRONON_RING_MAGIC */
	uint32_t version;     /* 228 CHRONON_RING_VERSION */
	uint64_t win_lo;      /* 232 record-time cycle window (CHRONON_TRACE cycles=): an event */
	uint64_t win_span;    /* 240 is kept when cycle - win_lo <= win_span; creator */
	uint32_t lock;        /* 248 shared units: the producers' lock, 0 free (chronon_unit_lock) */
	uint32_t shared;      /* 252 1 for a shared unit (chronon_unit_options.shared); creator */
	/* 256: uint32_t lens[n_chunks]; then, at data_off, the chunks */
} chronon_unit;

#define CHRONON_RING_MAGIC 0x474E5243u /* "CRNG" */
#define CHRONON_RING_VERSION 1u
#define CHRONON_RING_CLOSED 1u         /* flags bit 0 */
#define CHRONON_EVENT_HEADER 26u       /* [args_size u16][24-byte record] */
#define CHRONON_MAX_ARGS_SIZE 65535u   /* args_size is a u16 */

#define CHRONON__CAT2(a, b) a##b
#define CHRONON__CAT(a, b) CHRONON__CAT2(a, b)
#if defined(__cplusplus)
#define CHRONON__STATIC_ASSERT(c, m) static_assert(c, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CHRONON__STATIC_ASSERT(c, m) _Static_assert(c, m)
#else /* C99: a negative array size fails the build */
#define CHRONON__STATIC_ASSERT(c, m) \
	typedef char CHRONON__CAT(chronon__static_assert_, __LINE__)[(c) ? 1 : -1] __attribute__((unused))
#endif

/* The offsets of docs/ring.md, which chronon/ring_layout_test.go pins on the Go side. */
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, head) == 0, "ring.md: head at 0");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, tail) == 64, "ring.md: tail at 64");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, mask) == 128, "ring.md: mask at 128");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, lim) == 136, "ring.md: lim at 136");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, off) == 140, "ring.md: off at 140");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, chunk) == 144, "ring.md: chunk at 144");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, head_local) == 152, "ring.md: head_local at 152");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, has_chunk) == 160, "ring.md: has_chunk at 160");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, flags) == 164, "ring.md: flags at 164");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, dropped) == 168, "ring.md: dropped at 168");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, waits) == 176, "ring.md: waits at 176");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, src_word) == 184, "ring.md: src_word at 184");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, chunk_size) == 192, "ring.md: chunk_size at 192");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, n_chunks) == 196, "ring.md: n_chunks at 196");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, max_args) == 200, "ring.md: max_args at 200");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, policy) == 204, "ring.md: policy at 204");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, data_off) == 208, "ring.md: data_off at 208");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, handle) == 216, "ring.md: handle at 216");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, magic) == 224, "ring.md: magic at 224");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, version) == 228, "ring.md: version at 228");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, win_lo) == 232, "ring.md: win_lo at 232");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, win_span) == 240, "ring.md: win_span at 240");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, lock) == 248, "ring.md: lock at 248");
CHRONON__STATIC_ASSERT(offsetof(chronon_unit, shared) == 252, "ring.md: shared at 252");
CHRONON__STATIC_ASSERT(sizeof(chronon_unit) == 256, "ring.md: the control block is 256 bytes");
CHRONON__STATIC_ASSERT(sizeof(uint8_t *) == 8, "ring.md: chunk is an 8-byte address");

/* ------------------------------------------------------------------------
 * Tracers
 * ------------------------------------------------------------------------ */

/* A tracer handle: a number the library gave out (0: none). Copy it freely;
 * after chronon_destroy every call with it returns CHRONON_ERR_HANDLE. */
typedef struct chronon_tracer {
	uint64_t id;
} chronon_tracer;

/* How long one tick (an event's cycle) lasts: num/den seconds. Readers
 * convert cycles to time with it (exports in real time, rates per second);
 * without one a file has cycles only. A simulator whose clock is in
 * picoseconds (gem5, ChampSim's current_time) records chronon_picoseconds();
 * one counting the cycles of one clock records chronon_hz(frequency). */
typedef struct chronon_time_base {
	uint64_t num, den;
} chronon_time_base;

static inline chronon_time_base chronon_hz(uint64_t freq) {
	chronon_time_base tb;
	tb.num = freq != 0;
	tb.den = freq;
	return tb;
}
static inline chronon_time_base chronon_picoseconds(void) { return chronon_hz(UINT64_C(1000000000000)); }
static inline chronon_time_base chronon_nanoseconds(void) { return chronon_hz(UINT64_C(1000000000)); }

/* One pair of run metadata (recorded in the schema's metadata). */
typedef struct chronon_kv {
	const char *key;   /* non-empty */
	const char *value; /* NULL: "" */
} chronon_kv;

/* Options of chronon_open. Zero-initialize (CHRONON_OPTIONS_INIT) and set
 * what you need: every zero field means "the default". The strings are
 * copied; they need to live only during the call. */
typedef struct chronon_options {
	uint32_t block_size;          /* bytes per block: a power of two, 4096..1048576; 0: 131072 */
	int32_t level;                /* zstd level 1..22; 0: default (3); CHRONON_LEVEL_NONE: raw */
	uint64_t ring_size;           /* bytes per unit ring: a power of two >= 2 blocks; 0: 4 blocks */
	int32_t policy;               /* CHRONON_POLICY_BLOCK (0, default) or CHRONON_POLICY_DROP */
	int32_t compression_workers;  /* goroutines compressing blocks; 0: one per CPU */
	int64_t flush_interval_ns;    /* bound on how long an event stays in memory; 0: 1 s;
	                                 negative: no periodic flush; else >= 1 ms */
	uint64_t default_mask;        /* category mask of new units; 0: all categories */
	const char *simulation_name;  /* NULL: none */
	uint64_t config_hash;         /* a hash of the simulator's configuration */
	const chronon_kv *metadata;   /* n_metadata pairs (may be NULL when n_metadata is 0) */
	size_t n_metadata;
	int32_t no_auto_metadata;     /* non-zero: do not record host, command line, start
	                                 time, pid and MPI/Slurm/torchrun rank */
	uint32_t unit_id_base;        /* first automatic unit id (chronon_unit_options.id 0),
	                                 1..65535; 0: 1. Give each rank of a parallel run its
	                                 own range (1 + rank*units_per_rank) and
	                                 `trace_reader merge` copies the rank files' blocks
	                                 instead of renumbering them */
	const char *select;           /* record-time selection, CHRONON_TRACE's syntax
	                                 ("units=core1.*;categories=fetch;cycles=A-B"); NULL: read
	                                 CHRONON_TRACE; "": record everything. A malformed value
	                                 fails chronon_open with CHRONON_ERR_ARG */
	chronon_time_base time_base;  /* the length of a tick for every unit (units may have
	                                 their own: chronon_unit_set_time_base); {0, 0}: none;
	                                 only one of them 0: CHRONON_ERR_ARG */
	uint32_t symbol_limit;        /* strings chronon_intern may add, 1..1048576; 0: 65536 */
} chronon_options;

#ifdef __cplusplus
#define CHRONON_OPTIONS_INIT {}
#else
#define CHRONON_OPTIONS_INIT {0}
#endif

/* chronon_open creates (truncates) the file at path and starts the
 * background writer. opts may be NULL (all defaults).
 *   CHRONON_OK         *out is the tracer
 *   CHRONON_ERR_ARG    out or path is NULL, or an option is invalid
 *   CHRONON_ERR_IO     the file cannot be created, or another tracer (of this
 *                      process or another, Go or C) is writing it: the output
 *                      is locked (flock) from open to close
 * On failure *out is {0}. Any thread. */
chronon_status chronon_open(chronon_tracer *out, const char *path, const chronon_options *opts);

/* chronon_flush writes every event emitted so far to the file (without
 * fsync). It seals the units' partly filled chunks on their producers'
 * behalf: no emit may be in flight (see THREADS).
 *   CHRONON_OK, CHRONON_CLOSED, CHRONON_ERR_HANDLE, CHRONON_ERR_IO (the
 *   tracer's first I/O error; tracing goes on, later blocks count as lost) */
chronon_status chronon_flush(chronon_tracer t);

/* chronon_sync is chronon_flush followed by fsync. */
chronon_status chronon_sync(chronon_tracer t);

/* chronon_close drains every unit, writes the footer and fsyncs. No emit
 * may be in flight. The units stay mapped: a later emit returns
 * CHRONON_CLOSED and is counted as dropped.
 *   CHRONON_OK
 *   CHRONON_CLOSED      the tracer was already closed (nothing done)
 *   CHRONON_ERR_HANDLE  unknown or destroyed tracer
 *   CHRONON_ERR_IO      the first I/O error met while tracing or closing */
chronon_status chronon_close(chronon_tracer t);

/* chronon_destroy closes the tracer if it is open, unmaps its units' rings
 * and forgets the handle. Call it once no thread will touch the units.
 * Returns what chronon_close returned (CHRONON_OK if it was closed before),
 * or CHRONON_ERR_HANDLE. */
chronon_status chronon_destroy(chronon_tracer t);

/* chronon_tracer_error returns CHRONON_ERR_IO (and sets the last error) if
 * the tracer met an I/O error so far, CHRONON_OK if not. */
chronon_status chronon_tracer_error(chronon_tracer t);

/* ------------------------------------------------------------------------
 * Formats (process-wide, permanent)
 * ------------------------------------------------------------------------ */

/* A registered format, filled by chronon_format_register. The emit path
 * reads it; treat the fields as read-only. */
typedef struct chronon_format {
	uint64_t category;     /* category mask: recorded when unit mask & category != 0 */
	uint64_t id_cat;       /* record bytes 8..16: id | low 32 bits of category << 32 */
	uint64_t argc_word;    /* record bytes 16..24 without the source: arg_count << 16 */
	uint64_t sig;          /* the argument types packed (chronon__sig); typed emitters
	                          compare it to theirs */
	uint64_t check;        /* chronon__format_check(): tells a registered format from
	                          an uninitialized or altered one */
	const uint8_t *types;  /* arg_count chronon_arg_type values, owned by the library */
	uint32_t id;           /* format id (>= 1), the number written into events */
	uint16_t fixed_size;   /* bytes of the non-string arguments */
	uint8_t arg_count;
	uint8_t n_strings;     /* string arguments */
} chronon_format;

/* Options of chronon_format_register; zero-initialize. */
typedef struct chronon_format_options {
	uint64_t category;     /* category mask; 0: CHRONON_CATEGORY_DEFAULT */
	int32_t kind;          /* CHRONON_KIND_* (default instant) */
	int32_t log_level;     /* with is_log: 0 debug .. 3 error */
	const uint8_t *roles;  /* NULL, or one CHRONON_ROLE_* per argument */
	const char *name;      /* display name of spans and counters; NULL: derived */
	const char *file;      /* source location recorded in the schema; NULL: none */
	uint32_t line;
	int32_t is_log;        /* non-zero: a log message (the original's log channel) */
} chronon_format_options;

#ifdef __cplusplus
#define CHRONON_FORMAT_OPTIONS_INIT {}
#else
#define CHRONON_FORMAT_OPTIONS_INIT {0}
#endif

/* chronon_format_register registers text with n argument types (values of
 * chronon_arg_type, at most 255) and fills *out. text holds exactly n
 * placeholders: {} or {:x} (hex). opts may be NULL. Formats live for the
 * process and every tracer writes them all into its schema. Registering
 * the same format again (text, types, kind, roles, display name, category,
 * log level; not the source location) returns the same format, as the Go
 * runtime does: a helper may register on behalf of each caller.
 *   CHRONON_OK
 *   CHRONON_ERR_ARG  NULL text/out, types NULL with n > 0, an unknown type,
 *                    a placeholder count other than n, an unknown kind or
 *                    role, roles the kind cannot have (the Go runtime's
 *                    rules); the message names the format and the rule
 * Any thread, and from static constructors (registration does not wait
 * for the Go runtime). Never aborts. */
chronon_status chronon_format_register(const char *text, const uint8_t *types, size_t n,
                                       const chronon_format_options *opts, chronon_format *out);

/* chronon_format_get fills *out with the format registered (through this
 * library) under id.
 *   CHRONON_OK, CHRONON_ERR_FORMAT (unknown id), CHRONON_ERR_ARG (out NULL) */
chronon_status chronon_format_get(uint32_t id, chronon_format *out);

/* chronon_category_register names the next free category bit and stores
 * its mask in *mask (names appear in the schema; masks work without names).
 * It never hands out CHRONON_CATEGORY_DEFAULT, the category of every format
 * registered without one, so masking a registered category off leaves those
 * formats enabled; 63 bits remain.
 *   CHRONON_OK, CHRONON_ERR_ARG (NULL/empty name, name taken, 63 bits used) */
chronon_status chronon_category_register(const char *name, const char *description, uint64_t *mask);

/* ------------------------------------------------------------------------
 * Units
 * ------------------------------------------------------------------------ */

/* Options of chronon_unit_create; zero-initialize. */
typedef struct chronon_unit_options {
	uint64_t mask;         /* with has_mask: initial enable mask */
	int32_t has_mask;      /* zero: the tracer's default mask */
	uint16_t id;           /* unit id 1..65535; 0: the next free one */
	uint16_t shared;       /* 1: several threads emit into the unit, each emit (or begin ..
	                          commit) between chronon_unit_lock and chronon_unit_unlock;
	                          chronon.hpp locks by itself. 0: one producer thread */
	uint64_t ring_size;    /* bytes; 0: the tracer's ring size */
} chronon_unit_options;

#ifdef __cplusplus
#define CHRONON_UNIT_OPTIONS_INIT {}
#else
#define CHRONON_UNIT_OPTIONS_INIT {0}
#endif

/* chronon_unit_create creates a unit named name (dotted by convention,
 * "core0.fetch"; unique in the tracer) of type type_name (may be NULL) and
 * stores its handle in *out. opts may be NULL. Any thread.
 *   CHRONON_OK
 *   CHRONON_CLOSED      the tracer is closed
 *   CHRONON_ERR_ARG     NULL name/out, duplicate name or id, bad ring size
 *   CHRONON_ERR_HANDLE  unknown tracer */
chronon_status chronon_unit_create(chronon_tracer t, const char *name, const char *type_name,
                                   const chronon_unit_options *opts, chronon_unit **out);

/* chronon_unit_flush publishes the unit's partly filled chunk, so the
 * writer takes it now rather than when it fills. Producer thread only; for
 * a shared unit any thread, not holding the unit's lock (it takes it).
 * Pure C (does not call Go). CHRONON_OK or CHRONON_ERR_ARG (NULL/not a unit). */
chronon_status chronon_unit_flush(chronon_unit *u);

/* Shared units (chronon_unit_options.shared = 1). The emit functions of
 * this header are inline and lock nothing: on a shared unit each emit, or
 * each chronon_begin .. chronon_commit, goes between chronon_unit_lock and
 * chronon_unit_unlock, which serialise the unit's producer threads (a
 * spin lock that yields the CPU after a short spin; the ring's own waits
 * for room happen inside it). chronon.hpp does this by itself. Without
 * contention the pair costs an atomic exchange and a store. Calling them
 * on an unshared unit is allowed and does the same. */
void chronon__lock_slow(chronon_unit *u);
static inline void chronon_unit_lock(chronon_unit *u) {
	if (__builtin_expect(__atomic_exchange_n(&u->lock, 1u, __ATOMIC_ACQUIRE) != 0, 0))
		chronon__lock_slow(u);
}
static inline void chronon_unit_unlock(chronon_unit *u) { __atomic_store_n(&u->lock, 0u, __ATOMIC_RELEASE); }
/* chronon_unit_shared: was the unit created shared? */
static inline bool chronon_unit_shared(const chronon_unit *u) { return u->shared != 0; }

/* chronon_unit_prefault writes to every page of the unit's free chunks, so
 * that the first pass through a fresh ring does not page-fault inside
 * emits (the library maps rings lazily; a 64 MiB ring is 16384 first-touch
 * faults). Free chunks belong to the producer (docs/ring.md), so this is
 * producer-thread only, like an emit; the current chunk's events are left
 * alone. Pure C. CHRONON_OK or CHRONON_ERR_ARG (NULL/not a unit). */
chronon_status chronon_unit_prefault(chronon_unit *u);

/* The unit id written into its events. */
static inline uint16_t chronon_unit_id(const chronon_unit *u) { return (uint16_t)u->src_word; }

/* Masks: any thread; the producer sees a change at its next emit. */
static inline uint64_t chronon_unit_mask(const chronon_unit *u) {
	return __atomic_load_n(&u->mask, __ATOMIC_RELAXED);
}
static inline void chronon_unit_set_mask(chronon_unit *u, uint64_t mask) {
	__atomic_store_n(&u->mask, mask, __ATOMIC_RELAXED);
}
static inline void chronon_unit_enable(chronon_unit *u, uint64_t mask) {
	__atomic_fetch_or(&u->mask, mask, __ATOMIC_RELAXED);
}
static inline void chronon_unit_disable(chronon_unit *u, uint64_t mask) {
	__atomic_fetch_and(&u->mask, ~mask, __ATOMIC_RELAXED);
}
/* chronon_enabled: would an event of format f be recorded on u? */
static inline bool chronon_enabled(const chronon_unit *u, const chronon_format *f) {
	return (__atomic_load_n(&u->mask, __ATOMIC_RELAXED) & f->category) != 0;
}

/* ------------------------------------------------------------------------
 * Statistics (any thread, any time)
 * ------------------------------------------------------------------------ */

/* What happened to one unit's events. emitted counts events that passed the
 * mask and left the producer's current chunk (a partly filled chunk counts
 * once it is sealed). After close: emitted == written + dropped + lost. */
typedef struct chronon_unit_stats {
	uint64_t emitted;
	uint64_t written;  /* in blocks written to the file */
	uint64_t dropped;  /* Drop policy, or emitted after close */
	uint64_t lost;     /* in blocks that could not be written (I/O error) */
	uint64_t waits;    /* times the producer waited for room (Block policy) */
	uint16_t id;
} chronon_unit_stats;

typedef struct chronon_stats {
	uint64_t blocks;           /* blocks written */
	uint64_t raw_bytes;        /* their uncompressed bytes */
	uint64_t compressed_bytes; /* their bytes in the file, without block headers */
	int64_t file_bytes;        /* bytes appended to the file so far */
	size_t n_units;            /* units in the tracer (may exceed the cap given) */
	uint64_t symbols;          /* strings interned (chronon_intern) */
	uint64_t symbols_overflowed; /* chronon_intern calls that got CHRONON_SYMBOL_OVERFLOW */
} chronon_stats;

/* chronon_get_stats fills *out and the first min(cap, n_units) entries of
 * units (may be NULL when cap is 0), in unit creation order.
 *   CHRONON_OK, CHRONON_ERR_ARG (out NULL), CHRONON_ERR_HANDLE */
chronon_status chronon_get_stats(chronon_tracer t, chronon_stats *out, chronon_unit_stats *units,
                                 size_t cap);

/* chronon_get_unit_stats fills *out for unit u of tracer t.
 *   CHRONON_OK, CHRONON_ERR_ARG (NULL), CHRONON_ERR_HANDLE (unknown tracer,
 *   or u is not one of its units) */
chronon_status chronon_get_unit_stats(chronon_tracer t, const chronon_unit *u, chronon_unit_stats *out);

/* ------------------------------------------------------------------------
 * Emitting: library parts of the slow path (pure C: no call into Go except
 * the wait under the Block policy)
 * ------------------------------------------------------------------------ */

/* chronon__reserve is the producer's slow path (docs/ring.md, reserve(n)):
 * the event of n bytes does not fit the current chunk, or a flush was
 * requested, or there is no chunk yet. It seals the current chunk, takes
 * the next one (waiting or dropping per the policy) and returns CHRONON_OK
 * when the event may be written at offset 0 of u->chunk, CHRONON_DROPPED or
 * CHRONON_CLOSED (counted in dropped), or CHRONON_ERR_ARG when n exceeds
 * 26 + max_args. Called by the inline functions only. */
chronon_status chronon__reserve(chronon_unit *u, size_t n);

/* chronon__fail records msg as the thread's last error and returns s. */
chronon_status chronon__fail(chronon_status s, const char *msg);

/* chronon__begin_fail explains a failed check of chronon_begin or of a
 * typed emitter (want_sig 0: do not compare signatures). */
chronon_status chronon__begin_fail(const chronon_unit *u, const chronon_format *f, uint64_t want_sig,
                                   size_t args_size);

/* A unit that is always closed: chronon.hpp's default Unit points here so
 * that emitting into it returns CHRONON_CLOSED without a NULL check. */
extern chronon_unit chronon__dead_unit;

/* ------------------------------------------------------------------------
 * Emitting: inline helpers
 * ------------------------------------------------------------------------ */

#define CHRONON_LIKELY(x) __builtin_expect(!!(x), 1)
#define CHRONON_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CHRONON__INLINE static inline __attribute__((always_inline))

/* Signatures: the argument count and types packed in 64 bits (count in bits
 * 0..3, type i in bits 4+4i.., bit 63 set), for up to 14 arguments; 0 for
 * more. A typed emitter compares its compile-time signature with the
 * format's: one compare checks the argument count and every type. */
#define CHRONON__SIG_MARK (UINT64_C(1) << 63)
#define CHRONON__SIG_MAX_ARGS 14

static inline uint64_t chronon__sig(const uint8_t *types, size_t n) {
	uint64_t s = CHRONON__SIG_MARK | (uint64_t)n;
	size_t i;
	if (n > CHRONON__SIG_MAX_ARGS)
		return 0;
	for (i = 0; i < n; i++)
		s |= (uint64_t)(types[i] & 15) << (4 + 4 * i);
	return s;
}

/* chronon__format_check ties a format's check word to its id, category and
 * signature: a zeroed or altered chronon_format fails it (a zeroed one: the
 * signature's bit 63 is set). It is a guard against mistakes, not against
 * an adversary. An XOR, so that a typed emitter, whose signature is a
 * constant, checks registration and signature with one load of id_cat it
 * needs anyway, one XOR and one compare. */
static inline uint64_t chronon__format_check(uint64_t id_cat, uint64_t sig) {
	return id_cat ^ sig ^ UINT64_C(0x43524f4e464d5431);
}

/* Little-endian stores of any alignment (memcpy compiles to one mov). */
CHRONON__INLINE void chronon__st16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
CHRONON__INLINE void chronon__st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
CHRONON__INLINE void chronon__st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* chronon__begin_at: mask and window test, claim, header. No argument
 * checks: for callers whose arguments match the format by construction
 * (chronon.hpp, the typed emitters after their signature test). id_cat and
 * argc_word are the format's (the typed emitters have them without loading
 * them: see chronon__typed_begin).
 *
 * The claim is the fast path of docs/ring.md: room for the event of
 * 26 + args bytes in the current chunk, where the event goes at once
 * (nothing reads the chunk before this thread seals it: the next reserve,
 * or chronon_unit_flush). What the header needs of the format and the unit
 * is loaded before the first store into the chunk: a store through a byte
 * pointer may alias anything, so the compiler reloads whatever is read
 * after one. The bounds test is in 32 bits, which cannot wrap: off is at
 * most a chunk (1 MiB) and args_size at most max_args (less than a chunk);
 * so lim is compared from memory, and the new off is the sum already made.
 * The header is [args_size][record]: cycle, format id, category (low 32
 * bits), source id, arg count, five zero bytes (docs/format.md). args_size
 * goes in as 4 bytes whose upper two the cycle then overwrites: one store
 * of a constant instead of a 2-byte one, which x86 compilers make two
 * instructions. */
CHRONON__INLINE chronon_status chronon__begin_at(chronon_unit *u, const chronon_format *f, uint64_t cycle,
                                                 uint64_t id_cat, uint64_t argc_word, uint32_t args_size,
                                                 uint8_t **args) {
	const uint32_t n = CHRONON_EVENT_HEADER + args_size;
	uint32_t off, end;
	uint64_t word;
	uint8_t *p;
	if ((__atomic_load_n(&u->mask, __ATOMIC_RELAXED) & f->category) == 0 || cycle - u->win_lo > u->win_span)
		return CHRONON_DISABLED;
	off = u->off;
	end = off + n;
	if (CHRONON_UNLIKELY(end > __atomic_load_n(&u->lim, __ATOMIC_RELAXED))) {
		chronon_status s = chronon__reserve(u, n);
		if (s != CHRONON_OK)
			return s;
		off = 0;
		end = n;
	}
	word = u->src_word | argc_word; /* after the tests: a disabled event does not load it */
	p = u->chunk + off;
	u->off = end;
	chronon__st32(p, args_size);
	chronon__st64(p + 2, cycle);
	chronon__st64(p + 10, id_cat);
	chronon__st64(p + 18, word);
	*args = p + CHRONON_EVENT_HEADER;
	return CHRONON_OK;
}

/* chronon__begin_raw is chronon__begin_at with the format's own id_cat and
 * argc_word. */
CHRONON__INLINE chronon_status chronon__begin_raw(chronon_unit *u, const chronon_format *f, uint64_t cycle,
                                                  uint32_t args_size, uint8_t **args) {
	return chronon__begin_at(u, f, cycle, f->id_cat, f->argc_word, args_size, args);
}

/* ---- begin / put / commit: any format, arguments written one by one ----
 *
 *   chronon_writer w;
 *   chronon_begin(&w, u, &fmt, cycle, 8 + 1);   // args_size: the bytes of the arguments
 *   chronon_put_u64(&w, pc);
 *   chronon_put_bool(&w, taken);
 *   st = chronon_commit(&w);                    // CHRONON_OK, or why not
 *
 * Calling the puts and commit after a begin that did not return CHRONON_OK
 * is harmless (they do nothing; commit returns begin's status), so the code
 * needs no branch. begin checks the format (registered; args_size equals
 * the fixed size, or for formats with strings lies between the fixed size
 * plus one byte per string and the unit's max_args); each put checks that
 * it fits; commit checks that the arguments filled args_size exactly, and
 * otherwise takes the event back (CHRONON_ERR_ARG): the ring never holds a
 * malformed event. Types are the caller's business here (the typed emitters
 * and chronon_emit_args check them). Do not begin another event on the unit
 * before the commit. */
typedef struct chronon_writer {
	uint8_t *p;            /* next argument byte */
	uint8_t *start;        /* the event, for a take-back; NULL if begin failed */
	chronon_unit *u;
	uint32_t left;         /* argument bytes still to put */
	chronon_status status; /* begin's status, or CHRONON_ERR_ARG after a bad put */
} chronon_writer;

static inline chronon_status chronon_begin(chronon_writer *w, chronon_unit *u, const chronon_format *f,
                                           uint64_t cycle, size_t args_size) {
	uint8_t *args;
	chronon_status s;
	if (CHRONON_UNLIKELY(w == NULL))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_begin: writer is NULL");
	w->p = NULL;
	w->start = NULL;
	w->u = u;
	w->left = 0;
	if (CHRONON_UNLIKELY(u == NULL || f == NULL || f->check != chronon__format_check(f->id_cat, f->sig) ||
	                     (args_size != f->fixed_size &&
	                      (f->n_strings == 0 || args_size < (size_t)f->fixed_size + f->n_strings ||
	                       args_size > CHRONON_MAX_ARGS_SIZE)))) {
		w->status = chronon__begin_fail(u, f, 0, args_size);
		return w->status;
	}
	s = chronon__begin_raw(u, f, cycle, (uint32_t)args_size, &args);
	w->status = s;
	if (s != CHRONON_OK)
		return s;
	w->p = args;
	w->start = args - CHRONON_EVENT_HEADER;
	w->left = (uint32_t)args_size;
	return CHRONON_OK;
}

/* The puts: each writes one argument if it fits in what begin reserved;
 * otherwise it marks the writer bad (commit then fails). */
#define CHRONON__DEFINE_PUT(name, ctype, stype, conv)                        \
	CHRONON__INLINE void chronon_put_##name(chronon_writer *w, ctype v) {  \
		stype x = (stype)(conv);                                             \
		if (CHRONON_LIKELY(w->left >= sizeof(stype))) {                      \
			memcpy(w->p, &x, sizeof(stype));                                 \
			w->p += sizeof(stype);                                           \
			w->left -= (uint32_t)sizeof(stype);                              \
		} else if (w->status == CHRONON_OK) {                                \
			w->status = CHRONON_ERR_ARG;                                     \
		}                                                                    \
	}
CHRONON__DEFINE_PUT(i8, int8_t, int8_t, v)
CHRONON__DEFINE_PUT(i16, int16_t, int16_t, v)
CHRONON__DEFINE_PUT(i32, int32_t, int32_t, v)
CHRONON__DEFINE_PUT(i64, int64_t, int64_t, v)
CHRONON__DEFINE_PUT(u8, uint8_t, uint8_t, v)
CHRONON__DEFINE_PUT(u16, uint16_t, uint16_t, v)
CHRONON__DEFINE_PUT(u32, uint32_t, uint32_t, v)
CHRONON__DEFINE_PUT(u64, uint64_t, uint64_t, v)
CHRONON__DEFINE_PUT(f32, float, float, v)
CHRONON__DEFINE_PUT(f64, double, double, v)
CHRONON__DEFINE_PUT(ptr, const void *, uint64_t, (uintptr_t)v)
CHRONON__DEFINE_PUT(bool, bool, uint8_t, v ? 1 : 0)

/* chronon_str_size is the args_size share of string s: strlen(s) + 1. */
static inline size_t chronon_str_size(const char *s) { return s ? strlen(s) + 1 : 1; }

/* chronon_put_str writes s and its NUL, cut to what begin reserved for it:
 * at most left - 1 bytes, so a string sized with chronon_str_size fits
 * exactly. A NULL string marks the writer bad. */
static inline void chronon_put_str(chronon_writer *w, const char *s) {
	size_t n;
	if (CHRONON_UNLIKELY(s == NULL || w->left == 0)) {
		if (w->status == CHRONON_OK)
			w->status = CHRONON_ERR_ARG;
		return;
	}
	n = strlen(s);
	if (n > w->left - 1)
		n = w->left - 1;
	memcpy(w->p, s, n);
	w->p[n] = 0;
	w->p += n + 1;
	w->left -= (uint32_t)(n + 1);
}

/* chronon__commit_fail takes back an event whose arguments did not fill
 * args_size exactly (or had a NULL string) and explains it. It takes the
 * writer's fields by value: a writer whose address escaped would be kept in
 * memory by the compiler, costing every put a store and a load. */
chronon_status chronon__commit_fail(chronon_unit *u, uint8_t *start, uint8_t *p, uint32_t left, chronon_status st);

/* chronon_commit ends the event begun by chronon_begin: CHRONON_OK when the
 * arguments filled args_size exactly; begin's status if it failed; or
 * CHRONON_ERR_ARG after taking the event back (too few or too many bytes
 * put, or a NULL string). */
static inline chronon_status chronon_commit(chronon_writer *w) {
	if (CHRONON_LIKELY(w->status == CHRONON_OK && w->left == 0))
		return CHRONON_OK;
	if (w->start == NULL) /* begin failed (or a commit already failed): nothing reserved */
		return w->status;
	w->status = chronon__commit_fail(w->u, w->start, w->p, w->left, w->status);
	w->start = NULL;
	return w->status;
}

/* ---- Typed emitters: one inline function per argument signature ----
 *
 * CHRONON_DEFINE_EMITn(name, t0, ..., tn-1) defines
 *
 *   static inline chronon_status name(chronon_unit *u, const chronon_format *f,
 *                                     uint64_t cycle, T0 a0, ..., Tn-1 an-1);
 *
 * for fixed-size argument tokens: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 ptr
 * bool (C types int8_t .. uint64_t, float, double, const void *, bool).
 * The emitter compares the format's signature with its own (one compare:
 * argument count and every type) and returns CHRONON_ERR_ARG on a mismatch,
 * CHRONON_ERR_FORMAT for a format that was never registered, CHRONON_ERR_ARG
 * for NULL u or f. Then it is the fast path: mask, claim, header, stores.
 * For strings use chronon_begin/chronon_put_str or chronon_emit_args.
 *
 *   CHRONON_DEFINE_EMIT2(emit_fetch, u64, bool)
 *   ...
 *   emit_fetch(u, &fetch_fmt, cycle, pc, taken);
 */
#define CHRONON__CT_i8 int8_t
#define CHRONON__CT_i16 int16_t
#define CHRONON__CT_i32 int32_t
#define CHRONON__CT_i64 int64_t
#define CHRONON__CT_u8 uint8_t
#define CHRONON__CT_u16 uint16_t
#define CHRONON__CT_u32 uint32_t
#define CHRONON__CT_u64 uint64_t
#define CHRONON__CT_f32 float
#define CHRONON__CT_f64 double
#define CHRONON__CT_ptr const void *
#define CHRONON__CT_bool bool
#define CHRONON__AT_i8 1
#define CHRONON__AT_i16 2
#define CHRONON__AT_i32 3
#define CHRONON__AT_i64 4
#define CHRONON__AT_u8 5
#define CHRONON__AT_u16 6
#define CHRONON__AT_u32 7
#define CHRONON__AT_u64 8
#define CHRONON__AT_f32 9
#define CHRONON__AT_f64 10
#define CHRONON__AT_ptr 11
#define CHRONON__AT_bool 13
#define CHRONON__SZ_i8 1
#define CHRONON__SZ_i16 2
#define CHRONON__SZ_i32 4
#define CHRONON__SZ_i64 8
#define CHRONON__SZ_u8 1
#define CHRONON__SZ_u16 2
#define CHRONON__SZ_u32 4
#define CHRONON__SZ_u64 8
#define CHRONON__SZ_f32 4
#define CHRONON__SZ_f64 8
#define CHRONON__SZ_ptr 8
#define CHRONON__SZ_bool 1

/* Raw stores by token, returning the position after the argument. */
CHRONON__INLINE uint8_t *chronon__st_i8(uint8_t *p, int8_t v) { memcpy(p, &v, 1); return p + 1; }
CHRONON__INLINE uint8_t *chronon__st_i16(uint8_t *p, int16_t v) { memcpy(p, &v, 2); return p + 2; }
CHRONON__INLINE uint8_t *chronon__st_i32(uint8_t *p, int32_t v) { memcpy(p, &v, 4); return p + 4; }
CHRONON__INLINE uint8_t *chronon__st_i64(uint8_t *p, int64_t v) { memcpy(p, &v, 8); return p + 8; }
CHRONON__INLINE uint8_t *chronon__st_u8(uint8_t *p, uint8_t v) { memcpy(p, &v, 1); return p + 1; }
CHRONON__INLINE uint8_t *chronon__st_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); return p + 2; }
CHRONON__INLINE uint8_t *chronon__st_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); return p + 4; }
CHRONON__INLINE uint8_t *chronon__st_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); return p + 8; }
CHRONON__INLINE uint8_t *chronon__st_f32(uint8_t *p, float v) { memcpy(p, &v, 4); return p + 4; }
CHRONON__INLINE uint8_t *chronon__st_f64(uint8_t *p, double v) { memcpy(p, &v, 8); return p + 8; }
CHRONON__INLINE uint8_t *chronon__st_ptr(uint8_t *p, const void *v) {
	uint64_t x = (uint64_t)(uintptr_t)v;
	memcpy(p, &x, 8);
	return p + 8;
}
CHRONON__INLINE uint8_t *chronon__st_bool(uint8_t *p, bool v) { *p = v ? 1 : 0; return p + 1; }

/* Type i of a signature. The token is pasted in the CHRONON_DEFINE_EMITn
 * body itself (CHRONON__AT_##t): passed on unpasted, `bool` would first
 * expand to _Bool (stdbool.h). */
#define CHRONON__S(i, at) ((uint64_t)(at) << (4 + 4 * (i)))

/* The shared prologue: NULL checks, then one compare for registration and
 * signature together (the check word was computed from the format's own
 * signature, so it matches this constant one only if they are equal), then
 * the begin. The compare is written the other way round: the id_cat that
 * check and this signature imply (check = format_check(id_cat, sig), an
 * XOR) is compared with the format's, so the value compared is the one the
 * header stores, with no load of its own; and arg_count is the
 * signature's (bits 0..3), a constant. */
CHRONON__INLINE chronon_status chronon__typed_begin(chronon_unit *u, const chronon_format *f, uint64_t cycle,
                                                    uint64_t sig, uint32_t args_size, uint8_t **p) {
	uint64_t id_cat;
	if (CHRONON_UNLIKELY(u == NULL || f == NULL))
		return chronon__begin_fail(u, f, sig, args_size);
	id_cat = chronon__format_check(f->check, sig); /* an XOR is its own inverse */
	if (CHRONON_UNLIKELY(id_cat != f->id_cat))
		return chronon__begin_fail(u, f, sig, args_size);
	return chronon__begin_at(u, f, cycle, id_cat, (sig & 15) << 16, args_size, p);
}

#define CHRONON__TYPED_PROLOGUE(sig, size)                                         \
	uint8_t *p = NULL; /* set when s is CHRONON_OK; NULL quiets -Wmaybe-uninitialized */ \
	chronon_status s = chronon__typed_begin(u, f, cycle, (sig), (uint32_t)(size), &p); \
	if (s != CHRONON_OK)                                                           \
		return s

#define CHRONON_DEFINE_EMIT0(name)                                                          \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle) { \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 0, 0);                                  \
		(void)p;                                                                            \
		return CHRONON_OK;                                                                  \
	}
#define CHRONON_DEFINE_EMIT1(name, t0)                                                          \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0) {                                    \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 1 | CHRONON__S(0, CHRONON__AT_##t0), CHRONON__SZ_##t0);   \
		chronon__st_##t0(p, a0);                                                                \
		return CHRONON_OK;                                                                      \
	}
#define CHRONON_DEFINE_EMIT2(name, t0, t1)                                                      \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0, CHRONON__CT_##t1 a1) {               \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 2 | CHRONON__S(0, CHRONON__AT_##t0) | CHRONON__S(1, CHRONON__AT_##t1),  \
		                        CHRONON__SZ_##t0 + CHRONON__SZ_##t1);                           \
		p = chronon__st_##t0(p, a0);                                                            \
		chronon__st_##t1(p, a1);                                                                \
		return CHRONON_OK;                                                                      \
	}
#define CHRONON_DEFINE_EMIT3(name, t0, t1, t2)                                                  \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0, CHRONON__CT_##t1 a1,                 \
	                                  CHRONON__CT_##t2 a2) {                                    \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 3 | CHRONON__S(0, CHRONON__AT_##t0) | CHRONON__S(1, CHRONON__AT_##t1) | \
		                            CHRONON__S(2, CHRONON__AT_##t2),                                          \
		                        CHRONON__SZ_##t0 + CHRONON__SZ_##t1 + CHRONON__SZ_##t2);        \
		p = chronon__st_##t0(p, a0);                                                            \
		p = chronon__st_##t1(p, a1);                                                            \
		chronon__st_##t2(p, a2);                                                                \
		return CHRONON_OK;                                                                      \
	}
#define CHRONON_DEFINE_EMIT4(name, t0, t1, t2, t3)                                              \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0, CHRONON__CT_##t1 a1,                 \
	                                  CHRONON__CT_##t2 a2, CHRONON__CT_##t3 a3) {               \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 4 | CHRONON__S(0, CHRONON__AT_##t0) | CHRONON__S(1, CHRONON__AT_##t1) | \
		                            CHRONON__S(2, CHRONON__AT_##t2) | CHRONON__S(3, CHRONON__AT_##t3),                      \
		                        CHRONON__SZ_##t0 + CHRONON__SZ_##t1 + CHRONON__SZ_##t2 +        \
		                            CHRONON__SZ_##t3);                                          \
		p = chronon__st_##t0(p, a0);                                                            \
		p = chronon__st_##t1(p, a1);                                                            \
		p = chronon__st_##t2(p, a2);                                                            \
		chronon__st_##t3(p, a3);                                                                \
		return CHRONON_OK;                                                                      \
	}
#define CHRONON_DEFINE_EMIT5(name, t0, t1, t2, t3, t4)                                          \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0, CHRONON__CT_##t1 a1,                 \
	                                  CHRONON__CT_##t2 a2, CHRONON__CT_##t3 a3,                 \
	                                  CHRONON__CT_##t4 a4) {                                    \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 5 | CHRONON__S(0, CHRONON__AT_##t0) | CHRONON__S(1, CHRONON__AT_##t1) | \
		                            CHRONON__S(2, CHRONON__AT_##t2) | CHRONON__S(3, CHRONON__AT_##t3) | CHRONON__S(4, CHRONON__AT_##t4),  \
		                        CHRONON__SZ_##t0 + CHRONON__SZ_##t1 + CHRONON__SZ_##t2 +        \
		                            CHRONON__SZ_##t3 + CHRONON__SZ_##t4);                       \
		p = chronon__st_##t0(p, a0);                                                            \
		p = chronon__st_##t1(p, a1);                                                            \
		p = chronon__st_##t2(p, a2);                                                            \
		p = chronon__st_##t3(p, a3);                                                            \
		chronon__st_##t4(p, a4);                                                                \
		return CHRONON_OK;                                                                      \
	}
#define CHRONON_DEFINE_EMIT6(name, t0, t1, t2, t3, t4, t5)                                      \
	static inline chronon_status name(chronon_unit *u, const chronon_format *f, uint64_t cycle, \
	                                  CHRONON__CT_##t0 a0, CHRONON__CT_##t1 a1,                 \
	                                  CHRONON__CT_##t2 a2, CHRONON__CT_##t3 a3,                 \
	                                  CHRONON__CT_##t4 a4, CHRONON__CT_##t5 a5) {               \
		CHRONON__TYPED_PROLOGUE(CHRONON__SIG_MARK | 6 | CHRONON__S(0, CHRONON__AT_##t0) | CHRONON__S(1, CHRONON__AT_##t1) | \
		                            CHRONON__S(2, CHRONON__AT_##t2) | CHRONON__S(3, CHRONON__AT_##t3) | CHRONON__S(4, CHRONON__AT_##t4) | \
		                            CHRONON__S(5, CHRONON__AT_##t5),                                          \
		                        CHRONON__SZ_##t0 + CHRONON__SZ_##t1 + CHRONON__SZ_##t2 +        \
		                            CHRONON__SZ_##t3 + CHRONON__SZ_##t4 + CHRONON__SZ_##t5);    \
		p = chronon__st_##t0(p, a0);                                                            \
		p = chronon__st_##t1(p, a1);                                                            \
		p = chronon__st_##t2(p, a2);                                                            \
		p = chronon__st_##t3(p, a3);                                                            \
		p = chronon__st_##t4(p, a4);                                                            \
		chronon__st_##t5(p, a5);                                                                \
		return CHRONON_OK;                                                                      \
	}

/* ---- Tagged arguments: any format, strings included, fully checked ----
 *
 *   chronon_arg a[] = {chronon_arg_u32(id), chronon_arg_str(reason)};
 *   st = chronon_emit_args(u, &fmt, cycle, a, 2);
 *
 * A library function (no call into Go): it checks the count and every type
 * against the format and lays strings out exactly like the Go runtime: cut
 * at the first NUL, truncated (keeping one byte per later string) so that
 * the event fits the unit's max_args. Slower than the inline paths (a call
 * and a loop), meant for events with strings and for generic code. */
typedef struct chronon_arg {
	int32_t type; /* chronon_arg_type */
	union {
		int64_t i;
		uint64_t u;
		double d;
		float f;
		const char *s;
		const void *p;
		bool b;
	} v;
} chronon_arg;

#define CHRONON__ARG_CTOR(name, ctype, tag, field)                      \
	static inline chronon_arg chronon_arg_##name(ctype x) {              \
		chronon_arg a;                                                   \
		memset(&a, 0, sizeof a);                                         \
		a.type = tag;                                                    \
		a.v.field = x;                                                   \
		return a;                                                        \
	}
CHRONON__ARG_CTOR(i8, int8_t, CHRONON_INT8, i)
CHRONON__ARG_CTOR(i16, int16_t, CHRONON_INT16, i)
CHRONON__ARG_CTOR(i32, int32_t, CHRONON_INT32, i)
CHRONON__ARG_CTOR(i64, int64_t, CHRONON_INT64, i)
CHRONON__ARG_CTOR(u8, uint8_t, CHRONON_UINT8, u)
CHRONON__ARG_CTOR(u16, uint16_t, CHRONON_UINT16, u)
CHRONON__ARG_CTOR(u32, uint32_t, CHRONON_UINT32, u)
CHRONON__ARG_CTOR(u64, uint64_t, CHRONON_UINT64, u)
CHRONON__ARG_CTOR(f32, float, CHRONON_FLOAT, f)
CHRONON__ARG_CTOR(f64, double, CHRONON_DOUBLE, d)
CHRONON__ARG_CTOR(ptr, const void *, CHRONON_POINTER, p)
CHRONON__ARG_CTOR(str, const char *, CHRONON_STRING, s)
CHRONON__ARG_CTOR(bool, bool, CHRONON_BOOL, b)

/* chronon_emit_args records an event with n tagged arguments.
 *   CHRONON_OK, CHRONON_DISABLED, CHRONON_DROPPED, CHRONON_CLOSED
 *   CHRONON_ERR_ARG     NULL u/f, args NULL with n > 0, n != the format's
 *                       argument count, a type differs, a NULL string
 *   CHRONON_ERR_FORMAT  f is not a registered format
 * Producer thread of u. */
chronon_status chronon_emit_args(chronon_unit *u, const chronon_format *f, uint64_t cycle,
                                 const chronon_arg *args, size_t n);

/* ------------------------------------------------------------------------
 * Strings stored once per file, and time
 * ------------------------------------------------------------------------ */

/* chronon_intern returns in *sym the symbol of string s in tracer t, adding
 * it to the file's symbol table the first time (the schema holds the table,
 * rewritten before the first block that uses a new symbol). An argument of
 * type CHRONON_UINT32 with role CHRONON_ROLE_SYMBOL holds a symbol: our
 * readers print its string, the original C++ reader its number. Kinds,
 * names and locations that repeat in every event then cost 4 bytes and no
 * string copy at the emit. A symbol belongs to its tracer.
 *
 * A call into Go (about 100-200 ns): intern a string once and keep its
 * symbol, do not intern per event. Once the table holds symbol_limit
 * strings, or for a string longer than 1024 bytes, *sym is
 * CHRONON_SYMBOL_OVERFLOW (printed "[symbol table full]"; counted in
 * chronon_stats.symbols_overflowed) and the status CHRONON_OK.
 *   CHRONON_OK, CHRONON_ERR_ARG (NULL s or sym), CHRONON_ERR_HANDLE
 * Any thread. chronon_intern_n takes n bytes of s (NULs included). */
#define CHRONON_SYMBOL_OVERFLOW UINT32_C(0xFFFFFFFF)
chronon_status chronon_intern(chronon_tracer t, const char *s, uint32_t *sym);
chronon_status chronon_intern_n(chronon_tracer t, const char *s, size_t n, uint32_t *sym);

/* chronon_unit_set_time_base gives unit u of t a clock of its own (a clock
 * domain): its events' cycles are ticks of tb, which readers convert to
 * time with it instead of the file's time base (chronon_options.time_base).
 * Readers still order all units' events by cycle number, so a simulator with
 * several clocks usually records one timeline (picoseconds) everywhere. The
 * schema records it before the next block. Any thread.
 *   CHRONON_OK, CHRONON_ERR_ARG (NULL u, a zero num or den), CHRONON_ERR_HANDLE */
chronon_status chronon_unit_set_time_base(chronon_tracer t, chronon_unit *u, chronon_time_base tb);

/* ------------------------------------------------------------------------
 * The trace model: spans, counters, async spans, instructions
 *
 * Helpers that register formats exactly as the Go runtime's chronon.Span,
 * chronon.Counter, chronon.AsyncSpan and chronon.Stages do (the same texts,
 * kinds, roles and names), so readers and exporters treat C, C++ and Go
 * simulators alike, and inline functions that record their events through
 * typed emitters (no call into Go). The registration functions work like
 * chronon_format_register (any thread, before the Go runtime starts too;
 * the same registration twice gives the same formats); from opts they take
 * the category, source location, log flag and, where said, the name; the
 * kind and roles are theirs. A name that makes an invalid format (empty,
 * or with braces that add placeholders) returns CHRONON_ERR_ARG.
 *
 * The inline functions return the emit's status (CHRONON_OK, _DISABLED,
 * _DROPPED, _CLOSED) and check the format they are given: a format that is
 * not the helper's (another signature) gets CHRONON_ERR_ARG.
 * ------------------------------------------------------------------------ */

/* Flows. A flow id links one instruction's events across units and formats;
 * 0 means "no flow". chronon_seq_flow maps a sequence number that may be 0
 * (ChampSim's instr_id) to its flow: seq + 1; chronon_flow_seq is the
 * inverse. Readers show the flow id (Kanata's I line, dump's flow=). */
static inline uint64_t chronon_seq_flow(uint64_t seq) { return seq + 1; }
static inline uint64_t chronon_flow_seq(uint64_t flow) { return flow - 1; }

CHRONON_DEFINE_EMIT1(chronon__emit_u64, u64)
CHRONON_DEFINE_EMIT1(chronon__emit_i64, i64)
CHRONON_DEFINE_EMIT1(chronon__emit_f64, f64)
CHRONON_DEFINE_EMIT2(chronon__emit_u64_u64, u64, u64)
CHRONON_DEFINE_EMIT2(chronon__emit_u32_u64, u32, u64)
CHRONON_DEFINE_EMIT3(chronon__emit_u32_u64_u64, u32, u64, u64)

/* ---- Spans (chronon.Span): intervals on a unit's lanes ----
 *
 * A lane is a slot of a unit (a ROB entry, an MSHR, a port) where spans
 * nest; flow links the span to an instruction (0: none). Registers
 * "NAME begin lane={} flow={}", "NAME end lane={} flow={}" and
 * "NAME lane={} flow={} dur={}" (uint32 lane, uint64 flow and duration);
 * the display name is NAME unless opts->name says otherwise. */
typedef struct chronon_span {
	chronon_format begin, end, complete;
} chronon_span;

chronon_status chronon_span_register(const char *name, const chronon_format_options *opts, chronon_span *out);

/* chronon_span_begin opens a span on (u, lane) at cycle. */
static inline chronon_status chronon_span_begin(chronon_unit *u, const chronon_span *s, uint64_t cycle, uint32_t lane,
                                                uint64_t flow) {
	return chronon__emit_u32_u64(u, s ? &s->begin : NULL, cycle, lane, flow);
}
/* chronon_span_end closes the innermost open span of (u, lane) at cycle. */
static inline chronon_status chronon_span_end(chronon_unit *u, const chronon_span *s, uint64_t cycle, uint32_t lane,
                                              uint64_t flow) {
	return chronon__emit_u32_u64(u, s ? &s->end : NULL, cycle, lane, flow);
}
/* chronon_span_between records a span from cycle start to cycle end (the
 * end, not a duration). An end before the start (the two swapped, a stage
 * left before it was entered) is not recorded: CHRONON_ERR_ARG, and
 * chronon_last_error() says so. */
static inline chronon_status chronon_span_between(chronon_unit *u, const chronon_span *s, uint64_t start, uint64_t end,
                                                  uint32_t lane, uint64_t flow) {
	if (CHRONON_UNLIKELY(end < start))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_span_between: the end is before the start (not recorded)");
	return chronon__emit_u32_u64_u64(u, s ? &s->complete : NULL, start, lane, flow, end - start);
}
/* chronon_span_complete records a span of dur cycles from start. A span
 * whose end (start + dur) is past the last cycle, 2^64-1, which end - start
 * gives when end is before start, is not recorded: CHRONON_ERR_ARG, and
 * chronon_last_error() says so. */
static inline chronon_status chronon_span_complete(chronon_unit *u, const chronon_span *s, uint64_t start, uint64_t dur,
                                                   uint32_t lane, uint64_t flow) {
	if (CHRONON_UNLIKELY(start + dur < start))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_span_complete: the span ends past the last cycle (start + dur overflows; not recorded)");
	return chronon__emit_u32_u64_u64(u, s ? &s->complete : NULL, start, lane, flow, dur);
}

/* ---- Counters (chronon.Counter, chronon.FloatCounter) ----
 *
 * chronon_counter_register registers "NAME={}" of kind counter, its one
 * argument (role value) of value_type: an integer type, CHRONON_FLOAT or
 * CHRONON_DOUBLE (CHRONON_INT64 is Go's Counter, CHRONON_DOUBLE its
 * FloatCounter). The display name is NAME unless opts->name says otherwise.
 * Sample with chronon_counter_sample (int64 counters),
 * chronon_counter_sample_f64 (double counters) or a typed emitter. */
chronon_status chronon_counter_register(const char *name, int value_type, const chronon_format_options *opts,
                                        chronon_format *out);

static inline chronon_status chronon_counter_sample(chronon_unit *u, const chronon_format *f, uint64_t cycle, int64_t v) {
	return chronon__emit_i64(u, f, cycle, v);
}
static inline chronon_status chronon_counter_sample_f64(chronon_unit *u, const chronon_format *f, uint64_t cycle, double v) {
	return chronon__emit_f64(u, f, cycle, v);
}

/* chronon_on_change samples a counter on one unit only when its value
 * changes (Counter.OnChange in Go): a queue's occupancy sampled every cycle
 * costs an event per change, not per cycle. Keep one per (counter, unit),
 * used from the unit's producer thread:
 *
 *   chronon_on_change rob;
 *   chronon_on_change_init(&rob, core, &rob_occupancy);
 *   ... every cycle: chronon_on_change_sample(&rob, cycle, rob_count);
 *
 * The first sample is always recorded; an unchanged one returns CHRONON_OK
 * without recording. _sample is for int64 counters, _sample_f64 for double
 * counters (values compared bit for bit). */
typedef struct chronon_on_change {
	chronon_unit *u;
	const chronon_format *f;
	uint64_t last; /* the value last recorded, its bits */
	int32_t set;   /* a value was recorded */
} chronon_on_change;

static inline void chronon_on_change_init(chronon_on_change *c, chronon_unit *u, const chronon_format *f) {
	c->u = u;
	c->f = f;
	c->last = 0;
	c->set = 0;
}
static inline chronon_status chronon_on_change_sample(chronon_on_change *c, uint64_t cycle, int64_t v) {
	uint64_t bits = (uint64_t)v;
	if (c->set && bits == c->last)
		return CHRONON_OK;
	c->last = bits;
	c->set = 1;
	return chronon__emit_i64(c->u, c->f, cycle, v);
}
static inline chronon_status chronon_on_change_sample_f64(chronon_on_change *c, uint64_t cycle, double v) {
	uint64_t bits;
	memcpy(&bits, &v, 8);
	if (c->set && bits == c->last)
		return CHRONON_OK;
	c->last = bits;
	c->set = 1;
	return chronon__emit_f64(c->u, c->f, cycle, v);
}

/* ---- Async spans (chronon.AsyncSpan): tasks begun and ended by id ----
 *
 * Intervals named by an id rather than a lane: tasks, transactions,
 * requests, which overlap freely on one unit and end in any order. A begin
 * and an end pair by (unit, id); exporters pack a unit's async spans into
 * as few rows as are open at once. A begin names its parent span (the id of
 * a span of any unit, 0: none): readers build the request trees, draw an
 * arrow per edge and compute fan-out, depth and critical paths. Ids only
 * need to be unique among a unit's open spans.
 *
 * chronon_async_register registers "NAME begin id={} parent={}" (uint64 id
 * and parent) and "NAME end id={}" (uint64 id), display name NAME. With
 * n > 0 the begin carries n more arguments, of arg_types, whose part of the
 * text is arg_text with n placeholders ("what={} where={}": the begin is
 * "NAME begin id={} parent={} what={} where={}"); opts->roles, if not NULL,
 * gives their roles (CHRONON_ROLE_SYMBOL for interned strings; plain
 * otherwise). Record such a begin with a typed emitter of (u64, u64, ...)
 * on &out->begin, or chronon_emit_args; an argument-less one with
 * chronon_async_begin. An instant with an argument of role CHRONON_ROLE_ID
 * is drawn on the open span of that id (a tag, a milestone). */
typedef struct chronon_async {
	chronon_format begin, end;
} chronon_async;

chronon_status chronon_async_register(const char *name, const char *arg_text, const uint8_t *arg_types, size_t n,
                                      const chronon_format_options *opts, chronon_async *out);

/* chronon_async_begin opens span id on u at cycle, a child of span parent
 * (0: none). For spans registered with no more arguments. */
static inline chronon_status chronon_async_begin(chronon_unit *u, const chronon_async *a, uint64_t cycle, uint64_t id,
                                                 uint64_t parent) {
	return chronon__emit_u64_u64(u, a ? &a->begin : NULL, cycle, id, parent);
}
/* chronon_async_end closes span id of u at cycle. */
static inline chronon_status chronon_async_end(chronon_unit *u, const chronon_async *a, uint64_t cycle, uint64_t id) {
	return chronon__emit_u64(u, a ? &a->end : NULL, cycle, id);
}

/* ---- Instructions in a pipeline (chronon.Stages) ----
 *
 * An out-of-order core's instructions as the Kanata export and stats read
 * them: an instruction is a flow, its stages are complete spans on that
 * flow, and it ends with a retire or a squash (kinds CHRONON_KIND_RETIRE and
 * CHRONON_KIND_FLUSH). Once a trace has retire events, an instruction with
 * none is shown as still in flight at the end. chronon_stages does the
 * bookkeeping: the simulator keeps a chronon_inst in each instruction record
 * (no map, no allocation); entering a stage ends the one the instruction
 * was in, as a span from its entry to now on its unit.
 *
 *   static chronon_stages pipe;
 *   static const char *const names[] = {"fetch", "decode", "execute", "commit"};
 *   chronon_stages_register(names, 4, NULL, &pipe);
 *   instr->st = chronon_inst_start(instr->id);           // flow id + 1
 *   chronon_stage_enter(&pipe, core, cycle, &instr->st, 2); // execute
 *   chronon_stage_retire(&pipe, core, cycle, &instr->st);
 *
 * chronon_stages_register registers a span per stage name (chronon_span_register:
 * a name containing "stall" is drawn over the stages in Konata) in pipeline
 * order, "retire flow={}" (retire kind) and "squash flow={}" (flush kind);
 * opts apply to all of them (but not opts->name). n is 1..65535; two equal
 * names are CHRONON_ERR_ARG. The spans array is the library's, permanent.
 * One thread drives an instruction at a time, as for a unit. */
typedef struct chronon_stages {
	const chronon_span *spans; /* n, in pipeline order */
	size_t n;
	chronon_format retire, squash;
} chronon_stages;

chronon_status chronon_stages_register(const char *const *names, size_t n, const chronon_format_options *opts,
                                       chronon_stages *out);

/* An instruction's place in the pipeline. Make it with chronon_inst_start. */
typedef struct chronon_inst {
	uint64_t flow;      /* chronon_seq_flow of its sequence number */
	chronon_unit *unit; /* the unit of its open stage */
	uint64_t since;     /* the cycle it entered its open stage */
	int32_t stage;      /* index of its open stage, -1 none */
	uint32_t reserved_;
} chronon_inst;

/* chronon_inst_start makes an instruction of sequence number seq (0
 * allowed: its flow is seq + 1) that is in no stage yet. */
static inline chronon_inst chronon_inst_start(uint64_t seq) {
	chronon_inst in;
	in.flow = chronon_seq_flow(seq);
	in.unit = NULL;
	in.since = 0;
	in.stage = -1;
	in.reserved_ = 0;
	return in;
}

/* chronon_stage_leave ends the instruction's stage at cycle (a bubble
 * until its next enter): the stage's span from its entry to cycle. Returns
 * CHRONON_OK when it is in no stage, CHRONON_ERR_ARG (and records no span)
 * when cycle is before the stage's entry. */
static inline chronon_status chronon_stage_leave(const chronon_stages *s, uint64_t cycle, chronon_inst *in) {
	int32_t i = in->stage;
	if (i < 0)
		return CHRONON_OK;
	in->stage = -1;
	return chronon_span_between(in->unit, &s->spans[i], in->since, cycle, 0, in->flow);
}

/* chronon_stage_enter moves the instruction into stage i on unit u at
 * cycle: the stage it was in ends there. Returns the status of that
 * stage's span (CHRONON_OK if there was none), or CHRONON_ERR_ARG, with
 * nothing done, for a stage index out of range. */
static inline chronon_status chronon_stage_enter(const chronon_stages *s, chronon_unit *u, uint64_t cycle,
                                                 chronon_inst *in, size_t i) {
	chronon_status st;
	if (CHRONON_UNLIKELY(i >= s->n))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_stage_enter: stage index out of range");
	st = chronon_stage_leave(s, cycle, in);
	in->unit = u;
	in->since = cycle;
	in->stage = (int32_t)i;
	return st;
}

/* chronon_stage_retire ends the instruction's stage and records its
 * retirement (commit) on u at cycle; chronon_stage_squash records it as
 * squashed (a wrong-path instruction flushed from the pipeline). Each
 * returns the first status other than CHRONON_OK of the two events. */
static inline chronon_status chronon_stage_retire(const chronon_stages *s, chronon_unit *u, uint64_t cycle,
                                                  chronon_inst *in) {
	chronon_status a = chronon_stage_leave(s, cycle, in), b = chronon__emit_u64(u, &s->retire, cycle, in->flow);
	return a != CHRONON_OK ? a : b;
}
static inline chronon_status chronon_stage_squash(const chronon_stages *s, chronon_unit *u, uint64_t cycle,
                                                  chronon_inst *in) {
	chronon_status a = chronon_stage_leave(s, cycle, in), b = chronon__emit_u64(u, &s->squash, cycle, in->flow);
	return a != CHRONON_OK ? a : b;
}

/* Instruction dependencies: an instant format whose arguments include a
 * flow (the instruction that waits) and a CHRONON_ROLE_DEPENDS argument
 * (the flow of its producer), one dependency per event:
 *   "wakeup flow={} producer={}", roles {CHRONON_ROLE_FLOW, CHRONON_ROLE_DEPENDS}
 * The Kanata export draws it as an arrow (a W line). */

/* ------------------------------------------------------------------------
 * Shared units
 *
 * A unit has one producer thread at a time unless it was created with
 * chronon_unit_options.shared: then several threads may emit into it, each
 * emit between chronon_unit_lock and chronon_unit_unlock (see there). The
 * lock spins and yields; it has no timeout: a thread that keeps it stalls
 * the unit's other threads, and an emit without it is the misuse of two
 * producers on one unit (events lost or torn, found by ThreadSanitizer).
 * ------------------------------------------------------------------------ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CHRONON_H */
