/* api.c - the public library functions of chronon.h.
 *
 * Each checks what C can check cheaply (NULL pointers, the handle 0), then
 * calls its Go counterpart (export.go) with the calling thread's
 * last-error buffer. The formats table lives here, in C, so that the inline
 * emit path and chronon_format_get never need Go. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_cgo_export.h"
#include "internal.h"

/* The last error, per thread (chronon_last_error). Go writes into the
 * buffer of the thread that called it, through the eb/en arguments. */
static __thread char errbuf[CHRONON__ERRBUF_SIZE];
#define EB errbuf, sizeof errbuf

char *chronon__errbuf(void) { return errbuf; }

/* ---- Is the Go runtime up? ----
 *
 * The Go side's init (export.go) sets the flag when the runtime and its
 * packages are initialized. A call into Go before that waits for the
 * runtime, which never comes if the caller is a static constructor that
 * runs before libchronon.a's own (the archive starts the runtime from its
 * constructor): so registration does not call Go before the flag is set
 * (registry.c), and every other call waits for the flag a bounded time and
 * then returns a status instead of hanging. */
static int go_ready_flag;

void chronon__go_ready_set(void) { __atomic_store_n(&go_ready_flag, 1, __ATOMIC_RELEASE); }

int chronon__go_ready(void) { return __atomic_load_n(&go_ready_flag, __ATOMIC_ACQUIRE); }

chronon_status chronon__go_enter(const char *fn) {
	int i;
	for (i = 0; i < 5000 && !chronon__go_ready(); i++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL); /* the runtime is starting in its own thread (a few ms) */
	}
	if (!chronon__go_ready())
		return chronon__failf(CHRONON_ERR_INTERNAL,
		                      "%s: the Go runtime did not start within 5 s: in a program linked with libchronon.a, "
		                      "static constructors may run before the library's; call %s from main",
		                      fn, fn);
	return chronon__registry_sync(); /* formats and categories registered before the runtime started */
}

#define ENTER(fn)                                                  \
	do {                                                           \
		chronon_status enter_ = chronon__go_enter(fn);             \
		if (enter_ != CHRONON_OK)                                  \
			return enter_;                                         \
	} while (0)

chronon_status chronon__fail(chronon_status s, const char *msg) {
	snprintf(errbuf, sizeof errbuf, "%s", msg);
	return s;
}

chronon_status chronon__failf(chronon_status s, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	return s;
}

const char *chronon_last_error(void) { return errbuf; }

const char *chronon_version(void) { return CHRONON_VERSION; }

const char *chronon_status_string(chronon_status s) {
	switch (s) {
	case CHRONON_OK: return "CHRONON_OK";
	case CHRONON_DISABLED: return "CHRONON_DISABLED";
	case CHRONON_DROPPED: return "CHRONON_DROPPED";
	case CHRONON_CLOSED: return "CHRONON_CLOSED";
	case CHRONON_ERR_ARG: return "CHRONON_ERR_ARG";
	case CHRONON_ERR_HANDLE: return "CHRONON_ERR_HANDLE";
	case CHRONON_ERR_FORMAT: return "CHRONON_ERR_FORMAT";
	case CHRONON_ERR_IO: return "CHRONON_ERR_IO";
	case CHRONON_ERR_INTERNAL: return "CHRONON_ERR_INTERNAL";
	}
	return "CHRONON_(unknown status)";
}

const char *chronon__type_name(int type) {
	static const char *const names[] = {"none", "int8", "int16", "int32", "int64", "uint8", "uint16",
	                                    "uint32", "uint64", "float", "double", "pointer", "string", "bool"};
	return type >= 0 && type < 14 ? names[type] : "unknown";
}

/* ---- Tracers ---- */

#define NO_TRACER(fn) chronon__fail(CHRONON_ERR_HANDLE, fn ": unknown tracer (never opened, or destroyed)")

chronon_status chronon_open(chronon_tracer *out, const char *path, const chronon_options *opts) {
	uint64_t id = 0;
	chronon_status st;
	if (out == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_open: out is NULL");
	out->id = 0;
	if (path == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_open: path is NULL");
	ENTER("chronon_open");
	st = (chronon_status)chronon__go_open(&id, (char *)path, (chronon_options *)opts, EB);
	if (st == CHRONON_OK)
		out->id = id;
	return st;
}

chronon_status chronon_flush(chronon_tracer t) {
	if (t.id == 0)
		return NO_TRACER("chronon_flush");
	ENTER("chronon_flush");
	return (chronon_status)chronon__go_flush(t.id, 0, EB);
}

chronon_status chronon_sync(chronon_tracer t) {
	if (t.id == 0)
		return NO_TRACER("chronon_sync");
	ENTER("chronon_sync");
	return (chronon_status)chronon__go_flush(t.id, 1, EB);
}

chronon_status chronon_close(chronon_tracer t) {
	if (t.id == 0)
		return NO_TRACER("chronon_close");
	ENTER("chronon_close");
	return (chronon_status)chronon__go_close(t.id, EB);
}

chronon_status chronon_destroy(chronon_tracer t) {
	if (t.id == 0)
		return NO_TRACER("chronon_destroy");
	ENTER("chronon_destroy");
	return (chronon_status)chronon__go_destroy(t.id, EB);
}

chronon_status chronon_tracer_error(chronon_tracer t) {
	if (t.id == 0)
		return NO_TRACER("chronon_tracer_error");
	ENTER("chronon_tracer_error");
	return (chronon_status)chronon__go_tracer_error(t.id, EB);
}

/* ---- Units ---- */

chronon_status chronon_unit_create(chronon_tracer t, const char *name, const char *type_name,
                                   const chronon_unit_options *opts, chronon_unit **out) {
	chronon_unit *u = NULL;
	chronon_status st;
	if (out == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_unit_create: out is NULL");
	*out = NULL;
	if (name == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_unit_create: name is NULL");
	if (t.id == 0)
		return NO_TRACER("chronon_unit_create");
	ENTER("chronon_unit_create");
	st = (chronon_status)chronon__go_unit_create(t.id, (char *)name, (char *)type_name,
	                                             (chronon_unit_options *)opts, &u, EB);
	if (st == CHRONON_OK)
		*out = u;
	return st;
}

/* ---- Symbols and time bases ---- */

chronon_status chronon_intern_n(chronon_tracer t, const char *s, size_t n, uint32_t *sym) {
	if (sym == NULL || s == NULL) {
		if (sym != NULL)
			*sym = CHRONON_SYMBOL_OVERFLOW;
		return chronon__fail(CHRONON_ERR_ARG, "chronon_intern: the string or sym is NULL");
	}
	*sym = CHRONON_SYMBOL_OVERFLOW;
	if (t.id == 0)
		return NO_TRACER("chronon_intern");
	ENTER("chronon_intern");
	return (chronon_status)chronon__go_intern(t.id, (char *)s, n, sym, EB);
}

chronon_status chronon_intern(chronon_tracer t, const char *s, uint32_t *sym) {
	return chronon_intern_n(t, s, s ? strlen(s) : 0, sym);
}

chronon_status chronon_unit_set_time_base(chronon_tracer t, chronon_unit *u, chronon_time_base tb) {
	if (u == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_unit_set_time_base: unit is NULL");
	if (t.id == 0)
		return NO_TRACER("chronon_unit_set_time_base");
	ENTER("chronon_unit_set_time_base");
	return (chronon_status)chronon__go_unit_time_base(t.id, u, tb.num, tb.den, EB);
}

/* ---- Statistics ---- */

chronon_status chronon_get_stats(chronon_tracer t, chronon_stats *out, chronon_unit_stats *units, size_t cap) {
	if (out == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_get_stats: out is NULL");
	memset(out, 0, sizeof *out);
	if (units == NULL && cap > 0)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_get_stats: units is NULL but cap > 0");
	if (t.id == 0)
		return NO_TRACER("chronon_get_stats");
	ENTER("chronon_get_stats");
	return (chronon_status)chronon__go_stats(t.id, out, units, cap, EB);
}

chronon_status chronon_get_unit_stats(chronon_tracer t, const chronon_unit *u, chronon_unit_stats *out) {
	if (out == NULL || u == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_get_unit_stats: unit or out is NULL");
	memset(out, 0, sizeof *out);
	if (t.id == 0)
		return NO_TRACER("chronon_get_unit_stats");
	ENTER("chronon_get_unit_stats");
	return (chronon_status)chronon__go_unit_stats(t.id, (chronon_unit *)u, out, EB);
}

/* chronon__selftest_panic is for the tests: it returns the status of a Go
 * function that panics (CHRONON_ERR_INTERNAL). */
chronon_status chronon__selftest_panic(void);
chronon_status chronon__selftest_panic(void) {
	ENTER("chronon__selftest_panic");
	return (chronon_status)chronon__go_selftest_panic(EB);
}
