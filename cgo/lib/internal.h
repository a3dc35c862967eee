/* internal.h - shared by the C files of libchronon (not installed). */
#ifndef CHRONON_INTERNAL_H
#define CHRONON_INTERNAL_H

#include "chronon.h"

/* chronon__failf formats the thread's last error and returns s. */
chronon_status chronon__failf(chronon_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* chronon__type_name names an argument type ("uint64", ...). */
const char *chronon__type_name(int type);

/* The calling thread's last-error buffer (Go writes into it). */
#define CHRONON__ERRBUF_SIZE 1024
char *chronon__errbuf(void);

/* chronon__go_ready: the Go runtime and its packages are initialized
 * (set by export.go's init through chronon__go_ready_set). */
int chronon__go_ready(void);

/* chronon__go_enter prepares a call into Go: waits (bounded) for the
 * runtime, then hands it the formats and categories registered before it
 * started. Every api.c function calls it before its Go call. */
chronon_status chronon__go_enter(const char *fn);

/* chronon__registry_sync registers the queued formats and categories in Go
 * (registry.c). */
chronon_status chronon__registry_sync(void);

#endif
