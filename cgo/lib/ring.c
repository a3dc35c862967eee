/* ring.c - the producer's slow path of docs/ring.md, in C.
 *
 * The inline fast path (chronon.h, chronon__begin_raw) comes here when the
 * event does not fit before lim: the chunk is full, the consumer asked for a
 * flush (lim = 0), the tracer closed (lim = 0, flags bit 0), or the unit has
 * no chunk yet. Everything here is C; the only call into Go is the wait for
 * room under the Block policy (cabi.WaitForRoom), after a short wait in C
 * (wait_in_c). The steps and their memory orders are numbered as in
 * docs/ring.md. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "_cgo_export.h"
#include "internal.h"

static inline uint32_t *ring_lens(chronon_unit *u) {
	return (uint32_t *)((uint8_t *)u + sizeof(chronon_unit)); /* lens[] follow the control block */
}

static inline void count_drop(chronon_unit *u) { __atomic_fetch_add(&u->dropped, 1, __ATOMIC_RELAXED); }

/* seal publishes the current chunk (step 2). The plain stores of the events
 * and of lens[] happen-before the release store of head, which the consumer
 * loads with acquire. lim drops to 0 first: the chunk is the consumer's from
 * the head store on, so no emit may write into it again. */
static void seal(chronon_unit *u) {
	__atomic_store_n(&u->lim, 0, __ATOMIC_RELAXED);
	ring_lens(u)[u->head_local & (u->n_chunks - 1)] = u->off;
	u->head_local++;
	__atomic_store_n(&u->head, u->head_local, __ATOMIC_RELEASE);
	u->off = 0;
	u->has_chunk = 0;
}

/* full: no free chunk (docs/ring.md: head_local - tail >= n_chunks). */
static inline int full(chronon_unit *u) {
	return u->head_local - __atomic_load_n(&u->tail, __ATOMIC_ACQUIRE) >= u->n_chunks;
}

/* wait_in_c waits for room (Block policy) in C first: it sleeps and polls
 * tail, with the sleep doubling from 10 us to 200 us, for at most about
 * 5 ms; the consumer usually frees a chunk well within that. Why not go
 * straight to Go's cabi.WaitForRoom: on a thread created by C, the
 * goroutine that waits is locked to the thread, so waking it hands a P from
 * the consumer to this thread, and returning to C leaves that P parked in
 * syscall state until the runtime's monitor takes it back: the consumer
 * runs on fewer Ps exactly while the producer waits for it (W1 end to end
 * was about 20% slower). A long wait still goes to Go, which blocks without
 * polling. The environment variable CHRONON_C_WAIT_US sets the budget in
 * microseconds (0: wait in Go at once; the tests use it to exercise both). It returns 0 if the tracer closed, 1 otherwise (the caller then
 * waits in Go if the ring is still full). A wait that ends here is counted
 * in waits; one that goes on in Go is counted by Go. */
static long wait_budget_ns(void) {
	static long budget = -1; /* CHRONON_C_WAIT_US, read once; a racing first read is benign */
	long b = __atomic_load_n(&budget, __ATOMIC_RELAXED);
	if (b < 0) {
		const char *e = getenv("CHRONON_C_WAIT_US");
		b = e != NULL && *e != 0 ? strtol(e, NULL, 10) * 1000 : 5 * 1000 * 1000;
		if (b < 0)
			b = 0;
		__atomic_store_n(&budget, b, __ATOMIC_RELAXED);
	}
	return b;
}

static int wait_in_c(chronon_unit *u) {
	long slept = 0, d = 10 * 1000, budget = wait_budget_ns(); /* ns */
	while (slept < budget) {
		struct timespec ts = {0, d};
		if (__atomic_load_n(&u->flags, __ATOMIC_ACQUIRE) & CHRONON_RING_CLOSED)
			return 0;
		nanosleep(&ts, NULL);
		slept += d;
		d = d * 2 > 200 * 1000 ? 200 * 1000 : d * 2;
		if (!full(u)) {
			__atomic_fetch_add(&u->waits, 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 1;
}

chronon_status chronon__reserve(chronon_unit *u, size_t n) {
	/* An event larger than a chunk can never fit: refuse it before
	 * touching the ring (not a drop: the call was wrong). */
	if (n > CHRONON_EVENT_HEADER + (size_t)u->max_args)
		return chronon__failf(CHRONON_ERR_ARG,
		                      "emit: %zu bytes of arguments exceed the unit's max_args (%u); "
		                      "chronon_emit_args truncates strings to fit",
		                      n - CHRONON_EVENT_HEADER, u->max_args);
	/* 1. Closed: count a drop. The ring stays mapped after close, so this
	 *    read is always safe until chronon_destroy. */
	if (__atomic_load_n(&u->flags, __ATOMIC_ACQUIRE) & CHRONON_RING_CLOSED) {
		count_drop(u);
		return CHRONON_CLOSED;
	}
	/* 2. Seal the partly filled chunk. */
	if (u->has_chunk && u->off > 0)
		seal(u);
	/* 3. Acquire: the acquire load of tail pairs with the consumer's
	 *    release store, so its reads of the chunk we are about to reuse
	 *    happened before our writes. */
	if (full(u)) {
		if (u->policy == CHRONON_POLICY_DROP) {
			count_drop(u);
			return CHRONON_DROPPED;
		}
		if (!wait_in_c(u)) {
			count_drop(u); /* the tracer closed while we waited */
			return CHRONON_CLOSED;
		}
		while (full(u)) {
			if (chronon__go_wait_room((void *)(uintptr_t)u->handle) != 0) {
				count_drop(u); /* the tracer closed while we waited */
				return CHRONON_CLOSED;
			}
		}
	}
	/* 4. Take the chunk at head_local. */
	u->chunk = (uint8_t *)u + u->data_off + (u->head_local & (u->n_chunks - 1)) * (uint64_t)u->chunk_size;
	u->has_chunk = 1;
	u->off = 0;
	__atomic_store_n(&u->lim, u->chunk_size, __ATOMIC_RELAXED);
	return CHRONON_OK;
}

chronon_status chronon_unit_flush(chronon_unit *u) {
	if (u == NULL || u->magic != CHRONON_RING_MAGIC || u->version != CHRONON_RING_VERSION)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_unit_flush: not a unit");
	if (u->shared)
		chronon_unit_lock(u);
	if (u->has_chunk && u->off > 0)
		seal(u);
	if (u->shared)
		chronon_unit_unlock(u);
	return CHRONON_OK;
}

/* chronon__lock_slow: the lock of a shared unit is held. Spin reading it
 * (no writes while another thread holds the line), then yield the CPU: the
 * holder may be waiting for ring room, which takes the writer's time. */
void chronon__lock_slow(chronon_unit *u) {
	unsigned spins = 0;
	for (;;) {
		while (__atomic_load_n(&u->lock, __ATOMIC_RELAXED) != 0) {
			if (++spins < 128) {
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#endif
			} else {
				sched_yield();
			}
		}
		if (__atomic_exchange_n(&u->lock, 1u, __ATOMIC_ACQUIRE) == 0)
			return;
	}
}

chronon_status chronon_unit_prefault(chronon_unit *u) {
	uint64_t seq, end;
	if (u == NULL || u->magic != CHRONON_RING_MAGIC || u->version != CHRONON_RING_VERSION)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_unit_prefault: not a unit");
	/* Nothing to do on a closed ring (or chronon__dead_unit, which has no
	 * chunks at all). */
	if (u->chunk_size == 0 || (__atomic_load_n(&u->flags, __ATOMIC_ACQUIRE) & CHRONON_RING_CLOSED))
		return CHRONON_OK;
	/* Chunks [head_local, tail + n_chunks) are free: the producer's. In the
	 * current one, only the bytes past off (the events stay). */
	end = __atomic_load_n(&u->tail, __ATOMIC_ACQUIRE) + u->n_chunks;
	for (seq = u->head_local; seq < end; seq++) {
		volatile uint8_t *c = (uint8_t *)u + u->data_off + (seq & (u->n_chunks - 1)) * (uint64_t)u->chunk_size;
		uint32_t i = seq == u->head_local && u->has_chunk ? u->off : 0;
		for (; i < u->chunk_size; i += 4096)
			c[i] = 0;
		c[u->chunk_size - 1] = 0; /* chunks need not start on a page: the last one */
	}
	return CHRONON_OK;
}

/* The always-closed unit (chronon.hpp's default Unit): flags closed and
 * lim 0, so every emit goes to chronon__reserve and returns CHRONON_CLOSED.
 * max_args is the largest possible so that the size check never fires
 * first. */
chronon_unit chronon__dead_unit = {
	.mask = ~UINT64_C(0),
	.flags = CHRONON_RING_CLOSED,
	.n_chunks = 2,
	.max_args = CHRONON_MAX_ARGS_SIZE,
	.policy = CHRONON_POLICY_DROP,
	.magic = CHRONON_RING_MAGIC,
	.version = CHRONON_RING_VERSION,
	.win_span = ~UINT64_C(0), /* no window: every emit reaches the closed path */
};
