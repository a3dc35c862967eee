/* cbench - the C API's speed targets (make cbench).
 *
 *   cbench [--events N] [--w1-events N] [--units U] [--reps R]
 *          [--tracegen PATH] [--dir DIR]
 *
 * 1. Emit cost: ns per enabled event with a uint64 and a bool, from C.
 *    What it measures: the inline emit path of chronon.h (mask test, bounds
 *    test, header and argument stores) plus its share of the per-chunk slow
 *    path (seal and acquire once per 128 KiB chunk, pure C). The unit's ring
 *    is larger than the events of a run and pre-faulted
 *    (chronon_unit_prefault), so the producer never waits for the consumer
 *    and never takes a page fault: what is timed is the producer, while the
 *    Go consumer compresses (one worker, level 1) and writes on the other
 *    core, as it would in a simulation. Timed with CLOCK_MONOTONIC around
 *    the loop of N emits; the best and median of R runs are reported.
 *    Four variants: the typed emitter (CHRONON_DEFINE_EMIT2; the target),
 *    begin/put/commit, chronon_emit_args, and a disabled category.
 * 2. W1 end to end: the W1 workload (w1.h) through the C API, timed from
 *    format registration to the end of chronon_close, exactly what tracegen
 *    times, next to `tracegen --workload w1 --events N --units U` run in
 *    the same process, alternately, R times each; medians and their ratio.
 *
 * Targets: emit <= 10 ns; W1 from C within 15% of tracegen (ratio >= 0.85).
 * The CPU may be shared: figures are indicative. Exit 0 always (1 on an
 * API failure), the PASS/MISS lines say how the targets fared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "w1.h"

CHRONON_DEFINE_EMIT2(bench_emit, u64, bool)

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

static double median(double *v, int n) {
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum variant { TYPED, BEGIN_PUT, EMIT_ARGS, DISABLED, N_VARIANTS };
static const char *const variant_names[N_VARIANTS] = {
    "typed emitter (CHRONON_DEFINE_EMIT2)", "begin/put/commit", "chronon_emit_args", "disabled category"};

/* emit_run times n emits of (u64, bool) in a fresh tracer; ns per event. */
static double emit_run(const char *dir, const chronon_format *f, enum variant v, uint64_t n) {
	char path[4096];
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_unit_options uo = CHRONON_UNIT_OPTIONS_INIT;
	chronon_tracer t;
	chronon_unit *u;
	chronon_status st;
	uint64_t ring = 1 << 20, i;
	unsigned bad = 0;
	double t0, t1;

	while (ring < n * 35 + (1 << 20)) /* 35 bytes an event: the whole run fits */
		ring <<= 1;
	snprintf(path, sizeof path, "%s/cbench-emit.ctrace", dir);
	o.level = 1;
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

	t0 = now();
	switch (v) {
	case TYPED:
	case DISABLED:
		for (i = 0; i < n; i++)
			bad |= (unsigned)bench_emit(u, f, i, i << 2, (i & 1) == 0);
		break;
	case BEGIN_PUT:
		for (i = 0; i < n; i++) {
			chronon_writer w;
			chronon_begin(&w, u, f, i, 9);
			chronon_put_u64(&w, i << 2);
			chronon_put_bool(&w, (i & 1) == 0);
			bad |= (unsigned)chronon_commit(&w);
		}
		break;
	case EMIT_ARGS:
		for (i = 0; i < n; i++) {
			chronon_arg a[2];
			a[0] = chronon_arg_u64(i << 2);
			a[1] = chronon_arg_bool((i & 1) == 0);
			bad |= (unsigned)chronon_emit_args(u, f, i, a, 2);
		}
		break;
	default:
		break;
	}
	t1 = now();
	if (bad != (v == DISABLED ? (unsigned)CHRONON_DISABLED : 0u)) {
		fprintf(stderr, "cbench: unexpected emit status (%u): %s\n", bad, chronon_last_error());
		exit(1);
	}
	if ((st = chronon_close(t)) != CHRONON_OK)
		die("close", st);
	chronon_destroy(t);
	unlink(path);
	return (t1 - t0) * 1e9 / (double)n;
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

int main(int argc, char **argv) {
	static const uint8_t types[] = {CHRONON_UINT64, CHRONON_BOOL};
	uint64_t n = 10000000, n_w1 = 10000000;
	int units = 16, reps = 3, i, v;
	const char *tracegen = "bin/tracegen", *dir = "/tmp";
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	chronon_format f;
	w1_formats w;
	chronon_status st;
	double ns[N_VARIANTS][16], c[16], g[16], best, c_med, g_med;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--events") == 0)
			n = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--w1-events") == 0)
			n_w1 = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--units") == 0)
			units = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--tracegen") == 0)
			tracegen = argv[i + 1];
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else
			break;
	}
	if (i != argc || n == 0 || n_w1 == 0 || units < 1 || units > 1024 || reps < 1 || reps > 16) {
		fprintf(stderr, "usage: cbench [--events N] [--w1-events N] [--units U] [--reps R] [--tracegen PATH] [--dir DIR]\n");
		return 2;
	}
	/* W1's formats first, so they get ids 1 and 2 as in tracegen. */
	if ((st = w1_register(&w)) != CHRONON_OK)
		die("W1 formats", st);
	fo.category = 2;
	if ((st = chronon_format_register("bench pc=0x{:x} taken={}", types, 2, &fo, &f)) != CHRONON_OK)
		die("format", st);

	printf("cbench: libchronon %s, %d reps; the CPU may be shared: figures are indicative\n\n", chronon_version(), reps);
	printf("1. emit from C, (u64, bool), %llu events a run, ring holding the run, consumer on the other core\n",
	       (unsigned long long)n);
	for (v = 0; v < N_VARIANTS; v++) {
		for (i = 0; i < reps; i++)
			ns[v][i] = emit_run(dir, &f, (enum variant)v, n);
		best = ns[v][0];
		for (i = 1; i < reps; i++)
			best = ns[v][i] < best ? ns[v][i] : best;
		printf("   %-38s best %6.2f ns/event   median %6.2f ns/event\n", variant_names[v], best, median(ns[v], reps));
		if (v == TYPED)
			printf("   %s: enabled u64+bool emit %.2f ns (median) <= 10 ns\n",
			       median(ns[v], reps) <= 10 ? "PASS" : "MISS", median(ns[v], reps));
	}

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
