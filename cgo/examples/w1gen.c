/* w1gen - writes the W1 workload through the C API, like
 * `tracegen --workload w1`, and reports how fast (the same line format).
 *
 *   w1gen [--events N] [--units U] [--seed S] [--level L] [--block-size B]
 *         [--policy block|drop] -o FILE
 *
 * Exit status: 0 ok, 1 the trace could not be written (or an emit failed),
 * 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "w1.h"

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(const char *msg) {
	fprintf(stderr, "w1gen: %s\nusage: w1gen [--events N] [--units U] [--seed S] [--level L] "
	                "[--block-size B] [--policy block|drop] [--workers W] -o FILE\n", msg);
	return 2;
}

static int fail(const char *what, chronon_status st) {
	fprintf(stderr, "w1gen: %s: %s: %s\n", what, chronon_status_string(st), chronon_last_error());
	return 1;
}

int main(int argc, char **argv) {
	uint64_t events = 1000000, seed = 1, failed, dropped = 0, waits = 0;
	int units = 16, i;
	const char *out = NULL;
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_tracer t;
	chronon_unit **us;
	chronon_unit_stats *stats;
	chronon_stats total;
	w1_formats w;
	w1_state s;
	chronon_status st;
	struct stat fi;
	double start, el;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-o") != 0 && strncmp(a, "--", 2) != 0)
			return usage("unexpected argument");
		if (v == NULL)
			return usage("missing value");
		i++;
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
			out = v;
		else if (strcmp(a, "--events") == 0)
			events = strtoull(v, NULL, 10);
		else if (strcmp(a, "--units") == 0)
			units = atoi(v);
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 10);
		else if (strcmp(a, "--level") == 0)
			o.level = atoi(v) == 0 ? CHRONON_LEVEL_NONE : atoi(v);
		else if (strcmp(a, "--workers") == 0)
			o.compression_workers = atoi(v);
		else if (strcmp(a, "--block-size") == 0)
			o.block_size = (uint32_t)strtoul(v, NULL, 10);
		else if (strcmp(a, "--policy") == 0 && (strcmp(v, "block") == 0 || strcmp(v, "drop") == 0))
			o.policy = strcmp(v, "drop") == 0 ? CHRONON_POLICY_DROP : CHRONON_POLICY_BLOCK;
		else
			return usage("unknown option");
	}
	if (out == NULL)
		return usage("-o FILE is required");
	if (units < 1 || units > 65535)
		return usage("--units must be 1..65535");
	o.simulation_name = "w1";

	start = now();
	if ((st = w1_register(&w)) != CHRONON_OK)
		return fail("registering the formats", st);
	if ((st = chronon_open(&t, out, &o)) != CHRONON_OK)
		return fail("open", st);
	us = (chronon_unit **)calloc((size_t)units, sizeof *us);
	if ((st = w1_units(t, us, units)) != CHRONON_OK)
		return fail("creating the units", st);
	s = w1_start(seed);
	failed = w1_emit(&w, us, (uint64_t)units, &s, 0, events);
	if ((st = chronon_close(t)) != CHRONON_OK)
		return fail("close", st);
	el = now() - start;

	stats = (chronon_unit_stats *)calloc((size_t)units, sizeof *stats);
	if ((st = chronon_get_stats(t, &total, stats, (size_t)units)) != CHRONON_OK)
		return fail("stats", st);
	for (i = 0; i < units; i++)
		dropped += stats[i].dropped + stats[i].lost, waits += stats[i].waits;
	chronon_destroy(t);
	if (stat(out, &fi) != 0) {
		perror("w1gen: stat");
		return 1;
	}
	fprintf(stderr,
	        "w1gen: w1: %llu events, %d units -> %s: %lld bytes in %.3fs: %.2f M events/s, %.3f bytes/event, "
	        "%llu dropped, %llu waits\n",
	        (unsigned long long)events, units, out, (long long)fi.st_size, el, (double)events / el / 1e6,
	        (double)fi.st_size / (double)(events ? events : 1), (unsigned long long)dropped,
	        (unsigned long long)waits);
	if (failed != 0 && o.policy == CHRONON_POLICY_BLOCK) {
		fprintf(stderr, "w1gen: %llu emits failed: %s\n", (unsigned long long)failed, chronon_last_error());
		return 1;
	}
	free(stats);
	free(us);
	return 0;
}
