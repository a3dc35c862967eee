/* threads.c - T C threads, one unit each, N events each, under the Block
 * (no-loss) policy: nothing may be lost.
 *
 *   threads [--threads T] [--events N] [--ring BYTES] -o FILE
 *
 * Thread k emits "seq={} odd={}" (UInt64, Bool) with seq = cycle = 0..N-1
 * on unit "thread<k>". The ring is small (two 64 KiB chunks), so
 * the producers fill it and wait for the Go consumer often: the Block path
 * (chronon__go_wait_room) is exercised thousands of times. The program
 * checks that every emit returned CHRONON_OK and that the statistics say
 * emitted == written == N and dropped == 0 for every unit; the Go test
 * also decodes the file and checks each unit's sequence 0..N-1, in order.
 * Built with -fsanitize=thread by the TSan test. Exit 0 ok, 1 loss.
 *
 * --share-unit breaks the contract on purpose (every thread emits into
 * unit 0): the negative control that shows ThreadSanitizer sees the inline
 * emit path. Its trace and statistics are meaningless; it exits 0.
 *
 * --shared keeps the contract with one shared unit ("shared", created with
 * chronon_unit_options.shared = 1) that every thread emits into, each emit
 * between chronon_unit_lock and chronon_unit_unlock: thread k's events are
 * seq = k << 32 | i at cycle i, and the unit's statistics must say
 * emitted == written == T*N. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chronon.h"

CHRONON_DEFINE_EMIT2(emit_seq, u64, bool)

typedef struct worker {
	pthread_t th;
	chronon_unit *u;
	const chronon_format *f;
	uint64_t n;
	uint64_t failed;
	uint64_t key; /* --shared: k << 32, added to each seq */
	int shared;
} worker;

static void *produce(void *arg) {
	worker *w = (worker *)arg;
	uint64_t i;
	if (w->shared) {
		for (i = 0; i < w->n; i++) {
			chronon_unit_lock(w->u);
			w->failed += emit_seq(w->u, w->f, i, w->key | i, (i & 1) != 0) != CHRONON_OK;
			chronon_unit_unlock(w->u);
		}
		return NULL;
	}
	for (i = 0; i < w->n; i++)
		w->failed += emit_seq(w->u, w->f, i, i, (i & 1) != 0) != CHRONON_OK;
	return NULL;
}

static int fail(const char *what, chronon_status st) {
	fprintf(stderr, "threads: %s: %s: %s\n", what, chronon_status_string(st), chronon_last_error());
	return 1;
}

int main(int argc, char **argv) {
	static const uint8_t types[] = {CHRONON_UINT64, CHRONON_BOOL};
	int nthreads = 8, i, bad = 0, share = 0, shared = 0, nunits;
	uint64_t n = 1000000, waits = 0;
	const char *out = NULL;
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_format f;
	chronon_tracer t;
	chronon_stats total;
	chronon_unit_stats st[256];
	worker ws[256];
	chronon_status s;
	struct timespec a, b;

	o.block_size = 65536;
	o.ring_size = 2 * 65536;
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--share-unit") == 0) {
			share = 1;
			i--;
		} else if (strcmp(argv[i], "--shared") == 0) {
			shared = 1;
			i--;
		} else if (strcmp(argv[i], "--threads") == 0)
			nthreads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--events") == 0)
			n = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--ring") == 0)
			o.ring_size = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "-o") == 0)
			out = argv[i + 1];
		else
			break;
	}
	if (out == NULL || i != argc || nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "usage: threads [--share-unit | --shared] [--threads T] [--events N] [--ring BYTES] -o FILE\n");
		return 2;
	}
	o.policy = CHRONON_POLICY_BLOCK;
	o.simulation_name = "threads";
	if ((s = chronon_format_register("seq={} odd={}", types, 2, NULL, &f)) != CHRONON_OK)
		return fail("format", s);
	if ((s = chronon_open(&t, out, &o)) != CHRONON_OK)
		return fail("open", s);
	for (i = 0; i < nthreads; i++) {
		char name[32];
		snprintf(name, sizeof name, "thread%d", i);
		memset(&ws[i], 0, sizeof ws[i]);
		ws[i].f = &f;
		ws[i].n = n;
		if (shared) {
			ws[i].key = (uint64_t)i << 32;
			ws[i].shared = 1;
			if (i > 0) {
				ws[i].u = ws[0].u;
				continue;
			}
			chronon_unit_options uo = CHRONON_UNIT_OPTIONS_INIT;
			uo.shared = 1;
			if ((s = chronon_unit_create(t, "shared", "Worker", &uo, &ws[i].u)) != CHRONON_OK)
				return fail("unit", s);
			if (!chronon_unit_shared(ws[i].u))
				return fail("unit not shared", CHRONON_ERR_ARG);
			continue;
		}
		if ((s = chronon_unit_create(t, name, "Worker", NULL, &ws[i].u)) != CHRONON_OK)
			return fail("unit", s);
	}
	nunits = shared ? 1 : nthreads;
	if (share)
		for (i = 1; i < nthreads; i++)
			ws[i].u = ws[0].u;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&ws[i].th, NULL, produce, &ws[i]) != 0) {
			perror("threads: pthread_create");
			return 1;
		}
	for (i = 0; i < nthreads; i++)
		pthread_join(ws[i].th, NULL); /* happens-before chronon_close: no emit in flight */
	clock_gettime(CLOCK_MONOTONIC, &b);
	if ((s = chronon_close(t)) != CHRONON_OK)
		return fail("close", s);
	if ((s = chronon_get_stats(t, &total, st, 256)) != CHRONON_OK)
		return fail("stats", s);
	for (i = 0; i < nthreads; i++)
		if (ws[i].failed != 0) {
			fprintf(stderr, "threads: thread %d: %llu emits failed\n", i, (unsigned long long)ws[i].failed);
			bad = 1;
		}
	for (i = 0; i < nunits; i++) {
		uint64_t want = shared ? n * (uint64_t)nthreads : n;
		waits += st[i].waits;
		if (st[i].emitted != want || st[i].written != want || st[i].dropped != 0 || st[i].lost != 0) {
			fprintf(stderr, "threads: unit %u: %llu emits failed, emitted=%llu written=%llu dropped=%llu lost=%llu\n",
			        st[i].id, (unsigned long long)ws[i].failed, (unsigned long long)st[i].emitted,
			        (unsigned long long)st[i].written, (unsigned long long)st[i].dropped,
			        (unsigned long long)st[i].lost);
			bad = 1;
		}
	}
	chronon_destroy(t);
	if (share) {
		printf("threads: --share-unit: contract broken on purpose, results ignored\n");
		return 0;
	}
	printf("threads=%d events=%llu each, total=%llu, waits=%llu, %.3fs, %s\n", nthreads, (unsigned long long)n,
	       (unsigned long long)n * (uint64_t)nthreads, (unsigned long long)waits,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, bad ? "LOSS" : "nothing lost");
	return bad;
}
