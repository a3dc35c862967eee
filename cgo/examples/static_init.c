/* static_init.c - registration from a constructor that runs before the Go
 * runtime is up.
 *
 *   static_init OUT.ctrace        (link with libchronon.a)
 *
 * In a program linked with libchronon.a the Go runtime starts from the
 * archive's constructor, which the C runtime runs after the program's own
 * (link order). A format or category registered from an earlier
 * constructor must not wait for Go (it would wait forever): the library
 * validates and numbers it in C and hands it to Go at the first call into
 * Go (registry.c); registering it again, still that early, returns the same
 * format. With STATIC_INIT_OPEN set, the constructor also calls
 * chronon_open, which cannot work that early: it must return a status after
 * a bounded wait, not hang. Prints what happened; exit 0 when all is as
 * expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chronon.h"

int chronon__go_ready(void); /* library internal: is the Go runtime up? */

CHRONON_DEFINE_EMIT1(emit_x, u32)

static chronon_format f, f_again;
static uint64_t cat;
static chronon_status st_cat, st_fmt, st_again, st_open = CHRONON_OK;
static int ready_in_constructor;

__attribute__((constructor)) static void early(void) {
	static const uint8_t types[] = {CHRONON_UINT32};
	chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
	ready_in_constructor = chronon__go_ready();
	st_cat = chronon_category_register("early", "registered in a constructor", &cat);
	fo.category = cat;
	fo.file = __FILE__;
	fo.line = __LINE__;
	st_fmt = chronon_format_register("early x={}", types, 1, &fo, &f);
	/* The same registration again, still before Go: the same format. */
	fo.line = __LINE__;
	st_again = chronon_format_register("early x={}", types, 1, &fo, &f_again);
	if (getenv("STATIC_INIT_OPEN") != NULL) {
		chronon_tracer t;
		st_open = chronon_open(&t, "/dev/null", NULL);
		if (st_open != CHRONON_OK)
			printf("constructor: chronon_open: %s: %s\n", chronon_status_string(st_open), chronon_last_error());
		else
			chronon_destroy(t);
	}
}

int main(int argc, char **argv) {
	chronon_tracer t;
	chronon_unit *u;
	chronon_unit_stats us;
	chronon_status st;
	int bad = 0;
	uint32_t i;
	if (argc != 2) {
		fprintf(stderr, "usage: static_init OUT.ctrace\n");
		return 2;
	}
	printf("Go runtime up during the constructor: %s\n", ready_in_constructor ? "yes" : "no");
	printf("constructor: category %s mask=%llu, format %s id=%u\n", chronon_status_string(st_cat),
	       (unsigned long long)cat, chronon_status_string(st_fmt), f.id);
	bad |= st_cat != CHRONON_OK || st_fmt != CHRONON_OK || f.id != 1 || cat != 2; /* bit 0 is CHRONON_CATEGORY_DEFAULT's */
	printf("constructor: registered again: %s id=%u\n", chronon_status_string(st_again), f_again.id);
	bad |= st_again != CHRONON_OK || memcmp(&f_again, &f, sizeof f) != 0;
	if ((st = chronon_open(&t, argv[1], NULL)) != CHRONON_OK ||
	    (st = chronon_unit_create(t, "u", NULL, NULL, &u)) != CHRONON_OK) {
		printf("main: %s: %s\n", chronon_status_string(st), chronon_last_error());
		return 1;
	}
	for (i = 0; i < 1000; i++)
		bad |= emit_x(u, &f, i, i) != CHRONON_OK;
	bad |= chronon_close(t) != CHRONON_OK;
	bad |= chronon_get_unit_stats(t, u, &us) != CHRONON_OK || us.written != 1000;
	chronon_destroy(t);
	printf("main: 1000 events %s\n", bad ? "FAILED" : "written");
	if (getenv("STATIC_INIT_OPEN") != NULL)
		printf("constructor open: %s\n", chronon_status_string(st_open));
	return bad;
}
