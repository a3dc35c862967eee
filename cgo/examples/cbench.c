/* cbench - the C API's speed targets (make cbench).
 *
 *   cbench [--events N] [--w1-events N] [--units U] [--reps R]
 *          [--setup hot|cold|both] [--hot-ring BYTES] [--hot-dir DIR]
 *          [--tracegen PATH] [--dir DIR]
 *
 * 1. Emit cost: ns per enabled event with a uint64 and a bool, from C: the
 *    inline emit path of chronon.h (registration and signature check, mask
 *    and window tests, bounds test, header and argument stores) plus its
 *    share of the per-chunk slow path (seal and acquire once per 128 KiB
 *    chunk, pure C). Each timed loop is a function of its own (loop_*), so
 *    that its disassembly and its instruction count under callgrind are the
 *    emit's. Timed with CLOCK_MONOTONIC around the loop of N emits; R runs
 *    of every variant, alternating; min, median and max reported. Two
 *    setups, because a 35-byte event is written into memory:
 *    - hot (the target): a small ring (--hot-ring, 1 MiB) recycled by a
 *      consumer that keeps up (level none, the file in --hot-dir, /dev/shm
 *      by default), as in a simulation whose writer keeps up and as in Go's
 *      BenchmarkEmit: the chunks written are in cache. The waits column
 *      counts the producer's waits for room: nonzero means the consumer did
 *      not keep up and the figure includes its time.
 *    - cold: a ring holding the whole run (N x 35 bytes), pre-faulted
 *      (chronon_unit_prefault), the consumer compressing at level 1 on the
 *      other core: every event goes to memory no cache holds, so this setup
 *      measures DRAM write bandwidth as much as the emit.
 *    Variants: the typed emitter (CHRONON_DEFINE_EMIT2), begin/put/commit,
 *    chronon_emit_args, a disabled category, and a floor: the same 35 bytes
 *    stored in a loop with no check, into memory of the setup's size (a
 *    buffer as large as the ring, wrapped around for hot, fresh for cold).
 * 2. W1 end to end: the W1 workload (w1.h) through the C API, timed from
 *    format registration to the end of chronon_close, exactly what tracegen
 *    times, next to `tracegen --workload w1 --events N --units U` run in
 *    the same process, alternately, R times each; medians and their ratio.
 *    --w1-events 0 skips it.
 *
 * Targets (issue 24): the typed emit <= 5 ns (median, hot setup); W1 from C
 * within 15% of tracegen (ratio >= 0.85). The CPU may be shared: figures
 * are indicative. Exit 0 always (1 on an API failure or a lost event), the
 * PASS/MISS lines say how the targets fared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "w1.h"

CHRONON_DEFINE_EMIT2(bench_emit, u64, bool)

#define EVENT_BYTES 35u /* [args_size u16][24-byte record][u64][bool] */
/* The timed loops stay functions of their own, unmerged (GCC folds
 * identical functions: loop_disabled is loop_typed's copy). */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noipa))
#endif

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, chronon_status st) {
	fprintf(stderr, "cbench: %s: %s: %s\n", what, chronon_status_string(st), chronon_last_error());
	exit(1);
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* stats sorts v and gives its min, median and max. */
static void stats(double *v, int n, double *lo, double *med, double *hi) {
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	*lo = v[0];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*hi = v[n - 1];
}

static double median(double *v, int n) {
	double lo, med, hi;
	stats(v, n, &lo, &med, &hi);
	return med;
}

enum setup { HOT, COLD, N_SETUPS };
enum variant { TYPED, BEGIN_PUT, EMIT_ARGS, DISABLED, FLOOR, N_VARIANTS };
static const char *const variant_names[N_VARIANTS] = {
    "typed emitter (CHRONON_DEFINE_EMIT2)", "begin/put/commit", "chronon_emit_args", "disabled category",
    "floor: the 35 bytes, no checks"};

/* The timed loops: events i .. n-1. The arguments are the same in all:
 * cycle i, pc i << 2, taken (i & 1) == 0. Each returns the OR of the
 * statuses. */
static NOINLINE unsigned loop_typed(chronon_unit *u, const chronon_format *f, uint64_t i, uint64_t n) {
	unsigned bad = 0;
	for (; i < n; i++)
		bad |= (unsigned)bench_emit(u, f, i, i << 2, (i & 1) == 0);
	return bad;
}

/* loop_disabled is loop_typed, on a unit whose mask disables the format:
 * a function of its own so that callgrind counts the two apart. */
static NOINLINE unsigned loop_disabled(chronon_unit *u, const chronon_format *f, uint64_t i, uint64_t n) {
	unsigned bad = 0;
	for (; i < n; i++)
		bad |= (unsigned)bench_emit(u, f, i, i << 2, (i & 1) == 0);
	return bad;
}

static NOINLINE unsigned loop_begin_put(chronon_unit *u, const chronon_format *f, uint64_t i, uint64_t n) {
	unsigned bad = 0;
	for (; i < n; i++) {
		chronon_writer w;
		chronon_begin(&w, u, f, i, 9);
		chronon_put_u64(&w, i << 2);
		chronon_put_bool(&w, (i & 1) == 0);
		bad |= (unsigned)chronon_commit(&w);
	}
	return bad;
}

static NOINLINE unsigned loop_emit_args(chronon_unit *u, const chronon_format *f, uint64_t i, uint64_t n) {
	unsigned bad = 0;
	for (; i < n; i++) {
		chronon_arg a[2];
		a[0] = chronon_arg_u64(i << 2);
		a[1] = chronon_arg_bool((i & 1) == 0);
		bad |= (unsigned)chronon_emit_args(u, f, i, a, 2);
	}
	return bad;
}

/* loop_floor stores what the typed emitter stores, event after event, into
 * buf (size bytes, wrapped around when full), with no check at all. */
static NOINLINE void loop_floor(uint8_t *buf, size_t size, const chronon_format *f, uint64_t src_word, uint64_t n) {
	const uint64_t id_cat = f->id_cat, word = src_word | f->argc_word, per_pass = size / EVENT_BYTES;
	uint64_t i = 0;
	while (i < n) {
		uint64_t end = n - i < per_pass ? n : i + per_pass;
		uint8_t *p = buf;
		for (; i < end; i++, p += EVENT_BYTES) {
			chronon__st16(p, 9);
			chronon__st64(p + 2, i);
			chronon__st64(p + 10, id_cat);
			chronon__st64(p + 18, word);
			chronon__st64(p + 26, i << 2);
			p[34] = (i & 1) == 0;
		}
	}
}

typedef struct run_result {
	double ns;      /* per event */
	uint64_t waits; /* the producer's waits for room */
} run_result;

/* floor_run times loop_floor into a buffer of ring bytes (hot: wrapped
 * around) or one holding the run (cold), pre-faulted. */
static run_result floor_run(enum setup s, const chronon_format *f, uint64_t ring, uint64_t n) {
	size_t size = s == HOT ? (size_t)ring : (size_t)(n * EVENT_BYTES);
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	run_result r = {0, 0};
	double t0;
	if (buf == MAP_FAILED) {
		perror("cbench: mmap");
		exit(1);
	}
	memset(buf, 1, size); /* pre-fault, as chronon_unit_prefault does the ring */
	t0 = now();
	loop_floor(buf, size, f, 1, n);
	r.ns = (now() - t0) * 1e9 / (double)n;
	__asm__ volatile("" : : "r"(buf) : "memory"); /* the stores are observable */
	munmap(buf, size);
	return r;
}

/* emit_loop runs the variant's loop on events i .. n-1. */
static unsigned emit_loop(enum variant v, chronon_unit *u, const chronon_format *f, uint64_t i, uint64_t n) {
	switch (v) {
	case TYPED:
		return loop_typed(u, f, i, n);
	case DISABLED:
		return loop_disabled(u, f, i, n);
	case BEGIN_PUT:
		return loop_begin_put(u, f, i, n);
	case EMIT_ARGS:
		return loop_emit_args(u, f, i, n);
	default:
		return 0;
	}
}

/* emit_run times n emits of (u64, bool) in a fresh tracer of setup s.
 *
 * hot: the emits go in bursts that fill all chunks of the ring but one,
 * so the producer never waits; between bursts (not timed) chronon_flush
 * writes them and the consumer releases every chunk. From the second burst
 * on the producer writes into chunks it wrote before: memory the caches
 * hold, as in a simulation whose writer keeps up. (A consumer that keeps up
 * with a producer at a few ns an event while reading 35 bytes of each is
 * not to be had on one core: level none still checksums and writes every
 * block. Go's BenchmarkEmit has its consumer release chunks unread.) */
static run_result emit_run(enum setup s, const char *dir, const chronon_format *f, enum variant v, uint64_t ring,
                           uint64_t n) {
	const uint32_t block = 131072;
	char path[4096];
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_unit_options uo = CHRONON_UNIT_OPTIONS_INIT;
	chronon_unit_stats us;
	chronon_tracer t;
	chronon_unit *u;
	chronon_status st;
	unsigned bad = 0;
	run_result r = {0, 0};
	uint64_t i, burst;
	double t0, el = 0;

	if (v == FLOOR)
		return floor_run(s, f, ring, n);
	if (s == COLD)
		for (ring = 1 << 20; ring < n * EVENT_BYTES + (1 << 20);) /* the whole run fits */
			ring <<= 1;
	burst = s == COLD ? n : (ring / block - 1) * (block / EVENT_BYTES);
	snprintf(path, sizeof path, "%s/cbench-emit.ctrace", dir);
	o.block_size = block;
	o.level = s == HOT ? CHRONON_LEVEL_NONE : 1;
	o.compression_workers = 1;
	o.no_auto_metadata = 1;
	o.flush_interval_ns = -1;
	if ((st = chronon_open(&t, path, &o)) != CHRONON_OK)
		die("open", st);
	uo.ring_size = ring;
	if (v == DISABLED) {
		uo.has_mask = 1;
		uo.mask = 1; /* the format's category is 2 */
	}
	if ((st = chronon_unit_create(t, "core0.fetch", NULL, &uo, &u)) != CHRONON_OK)
		die("unit", st);
	chronon_unit_prefault(u);

	for (i = 0; i < n; i += burst) {
		uint64_t end = n - i < burst ? n : i + burst;
		t0 = now();
		bad |= emit_loop(v, u, f, i, end);
		el += now() - t0;
		if (end == n)
			break;
		if ((st = chronon_flush(t)) != CHRONON_OK)
			die("flush", st);
		/* Until the consumer released every chunk (it does so just after
		 * writing them): reading the control block, never writing it. */
		while (__atomic_load_n(&u->tail, __ATOMIC_ACQUIRE) != __atomic_load_n(&u->head, __ATOMIC_ACQUIRE)) {
			struct timespec ts = {0, 20000};
			nanosleep(&ts, NULL);
		}
	}
	if (bad != (v == DISABLED ? (unsigned)CHRONON_DISABLED : 0u)) {
		fprintf(stderr, "cbench: unexpected emit status (%u): %s\n", bad, chronon_last_error());
		exit(1);
	}
	if ((st = chronon_close(t)) != CHRONON_OK)
		die("close", st);
	if ((st = chronon_get_unit_stats(t, u, &us)) != CHRONON_OK)
		die("unit stats", st);
	if (us.written != (v == DISABLED ? 0 : n) || us.dropped != 0 || us.lost != 0) {
		fprintf(stderr, "cbench: %s: %llu events written of %llu (dropped %llu, lost %llu)\n", variant_names[v],
		        (unsigned long long)us.written, (unsigned long long)n, (unsigned long long)us.dropped,
		        (unsigned long long)us.lost);
		exit(1);
	}
	chronon_destroy(t);
	unlink(path);
	r.ns = el * 1e9 / (double)n;
	r.waits = us.waits;
	return r;
}

/* w1_c runs W1 through the C API; events per second. */
static double w1_c(const char *dir, const w1_formats *w, uint64_t n, int units) {
	char path[4096];
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_unit *us[1024];
	chronon_tracer t;
	chronon_status st;
	w1_state s = w1_start(1);
	double t0, el;
	snprintf(path, sizeof path, "%s/cbench-w1-c.ctrace", dir);
	o.simulation_name = "w1"; /* tracegen's options: 128 KiB blocks, level 3, Block */
	t0 = now();
	if ((st = chronon_open(&t, path, &o)) != CHRONON_OK)
		die("open", st);
	if ((st = w1_units(t, us, units)) != CHRONON_OK)
		die("units", st);
	if (w1_emit(w, us, (uint64_t)units, &s, 0, n) != 0)
		die("W1 emit", CHRONON_ERR_INTERNAL);
	if ((st = chronon_close(t)) != CHRONON_OK)
		die("close", st);
	el = now() - t0;
	chronon_destroy(t);
	unlink(path);
	return (double)n / el;
}

/* w1_go runs tracegen and reads its time ("... bytes in 1.234s: ..."). */
static double w1_go(const char *tracegen, const char *dir, uint64_t n, int units) {
	char cmd[8192], line[4096], path[4096];
	double secs = 0;
	FILE *p;
	snprintf(path, sizeof path, "%s/cbench-w1-go.ctrace", dir);
	snprintf(cmd, sizeof cmd, "'%s' --workload w1 --events %llu --units %d -o '%s' 2>&1", tracegen,
	         (unsigned long long)n, units, path);
	if ((p = popen(cmd, "r")) == NULL) {
		perror("cbench: popen tracegen");
		exit(1);
	}
	while (fgets(line, sizeof line, p) != NULL) {
		const char *at = strstr(line, " bytes in ");
		if (at != NULL)
			secs = strtod(at + strlen(" bytes in "), NULL);
	}
	if (pclose(p) != 0 || secs <= 0) {
		fprintf(stderr, "cbench: %s failed or printed no time\n", cmd);
		exit(1);
	}
	unlink(path);
	return (double)n / secs;
}

/* emit_setup runs R rounds of every variant in setup s, alternating, and
 * prints min/median/max; it returns the typed emitter's median. */
static double emit_setup(enum setup s, const char *dir, const chronon_format *f, uint64_t ring, uint64_t n,
                         int reps) {
	double ns[N_VARIANTS][16], lo, med, hi, typed = 0;
	uint64_t waits[N_VARIANTS] = {0};
	int i, v;
	for (i = 0; i < reps; i++)
		for (v = 0; v < N_VARIANTS; v++) {
			run_result r = emit_run(s, dir, f, (enum variant)v, ring, n);
			ns[v][i] = r.ns;
			waits[v] += r.waits;
		}
	for (v = 0; v < N_VARIANTS; v++) {
		stats(ns[v], reps, &lo, &med, &hi);
		if (v == TYPED)
			typed = med;
		printf("   %-38s min %6.2f  median %6.2f  max %6.2f ns/event", variant_names[v], lo, med, hi);
		if (v != FLOOR)
			printf("   waits %llu", (unsigned long long)waits[v]);
		printf("\n");
	}
	return typed;
}

int main(int argc, char **argv) {
	static const uint8_t types[] = {CHRONON_UINT64, CHRONON_BOOL};
	uint64_t n = 10000000, n_w1 = 10000000, hot_ring = 1 << 20;
	int units = 16, reps = 3, i, setups = 3;
	const char *tracegen = "bin/tracegen", *dir = "/tmp", *hot_dir = NULL;
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_format f;
	w1_formats w;
	chronon_status st;
	double c[16], g[16], c_med, g_med, typed;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--events") == 0)
			n = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--w1-events") == 0)
			n_w1 = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--units") == 0)
			units = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--setup") == 0)
			setups = strcmp(argv[i + 1], "hot") == 0    ? 1
			         : strcmp(argv[i + 1], "cold") == 0 ? 2
			         : strcmp(argv[i + 1], "both") == 0 ? 3
			                                            : 0;
		else if (strcmp(argv[i], "--hot-ring") == 0)
			hot_ring = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--hot-dir") == 0)
			hot_dir = argv[i + 1];
		else if (strcmp(argv[i], "--tracegen") == 0)
			tracegen = argv[i + 1];
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else
			break;
	}
	if (i != argc || n == 0 || units < 1 || units > 1024 || reps < 1 || reps > 16 || setups == 0 ||
	    hot_ring < (2 << 17) || (hot_ring & (hot_ring - 1)) != 0) { /* two 128 KiB chunks at least */
		fprintf(stderr, "usage: cbench [--events N] [--w1-events N] [--units U] [--reps R] [--setup hot|cold|both]\n"
		                "              [--hot-ring BYTES] [--hot-dir DIR] [--tracegen PATH] [--dir DIR]\n");
		return 2;
	}
	if (hot_dir == NULL) /* a consumer that keeps up: tmpfs if there is one */
		hot_dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : dir;
	/* W1's formats first, so they get ids 1 and 2 as in tracegen. */
	if ((st = w1_register(&w)) != CHRONON_OK)
		die("W1 formats", st);
	fo.category = 2;
	if ((st = chronon_format_register("bench pc=0x{:x} taken={}", types, 2, &fo, &f)) != CHRONON_OK)
		die("format", st);

	printf("cbench: libchronon %s, %d reps; the CPU may be shared: figures are indicative\n\n", chronon_version(), reps);
	printf("1. emit from C, (u64, bool), %llu events a run, %d runs of each variant, alternating\n",
	       (unsigned long long)n, reps);
	if (setups & 1) {
		printf("   hot: a %llu-byte ring recycled by a consumer that keeps up (level none, file in %s)\n",
		       (unsigned long long)hot_ring, hot_dir);
		typed = emit_setup(HOT, hot_dir, &f, hot_ring, n, reps);
		printf("   %s: enabled u64+bool emit %.2f ns (median, hot ring) <= 5 ns\n", typed <= 5 ? "PASS" : "MISS", typed);
	}
	if (setups & 2) {
		printf("   cold: a ring holding the run (%llu MB, pre-faulted), consumer compressing at level 1 on the other core;\n"
		       "   every event is written to memory no cache holds (DRAM write bandwidth; not the target)\n",
		       (unsigned long long)(n * EVENT_BYTES >> 20));
		typed = emit_setup(COLD, dir, &f, 0, n, reps);
		if (setups == 2)
			printf("   (the target is judged on the hot setup) enabled u64+bool emit %.2f ns (median, cold ring)\n", typed);
	}

	if (n_w1 == 0)
		return 0;
	printf("\n2. W1 end to end, %llu events, %d units, 128 KiB blocks, level 3, Block policy\n",
	       (unsigned long long)n_w1, units);
	for (i = 0; i < reps; i++) {
		g[i] = w1_go(tracegen, dir, n_w1, units);
		c[i] = w1_c(dir, &w, n_w1, units);
		printf("   run %d: tracegen (Go) %.2f M events/s   C API %.2f M events/s\n", i + 1, g[i] / 1e6, c[i] / 1e6);
	}
	g_med = median(g, reps);
	c_med = median(c, reps);
	printf("   median: tracegen (Go) %.2f M events/s   C API %.2f M events/s   ratio C/Go %.3f\n", g_med / 1e6,
	       c_med / 1e6, c_med / g_med);
	printf("   %s: W1 from C within 15%% of tracegen (ratio %.3f >= 0.85)\n", c_med / g_med >= 0.85 ? "PASS" : "MISS",
	       c_med / g_med);
	return 0;
}
