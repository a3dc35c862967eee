/* registry.c - format and category registration, in C first.
 *
 * Why not simply call Go: formats are typically registered from static
 * constructors (C++ namespace-scope chronon::Format objects, C
 * __attribute__((constructor))). In a program linked with libchronon.a the
 * Go runtime starts in the archive's own constructor, which may run AFTER
 * the program's: a call into Go from an earlier constructor would wait for
 * a runtime that never starts. So registration validates here, with the
 * rules of the Go runtime (chronon/format.go), assigns the id, and hands the
 * format to Go at once when the Go runtime is up, or else queues it until
 * the next call into Go (chronon__go_enter, always before any tracer
 * exists). Go registers the queued formats in order and must give back the
 * same ids: the only registrant of the process's Go registry is this file.
 *
 * The table of formats (index: id) also serves chronon_format_get.
 * Categories work the same way: the bit is chosen here (the lowest one no
 * named category uses, never CHRONON_CATEGORY_DEFAULT's, as
 * chronon.RegisterCategory does) and given to Go with chronon.NameCategory. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "internal.h"

typedef struct entry {
	chronon_format f;       /* what chronon_format_register returned */
	int pending;            /* not yet registered in Go */
	char *text, *name, *file; /* copies for the pending registration */
	uint8_t *roles;
	chronon_format_options opts;
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static entry *table; /* index: id; table[0] unused */
static size_t table_cap;
static uint32_t n_formats; /* ids 1..n_formats are taken */
static uint32_t n_pending; /* pending formats have the highest ids */

/* ---- The Go runtime's rules (chronon/format.go register, checkKind,
 *      checkRoleType; schema.Placeholders) ---- */

/* count_placeholders: a '{' that is not the last byte opens a placeholder
 * that runs to the next '}'; no closing brace: the rest is text. */
static size_t count_placeholders(const char *s) {
	size_t n = 0, len = strlen(s), i, j;
	for (i = 0; i < len; i++) {
		if (s[i] != '{' || i + 1 >= len)
			continue;
		for (j = i + 1; j < len && s[j] != '}'; j++)
			;
		if (j >= len)
			break;
		n++;
		i = j;
	}
	return n;
}

static const char *const role_names[] = {"plain", "lane", "flow", "duration", "value"};

static chronon_status check(const char *text, const uint8_t *types, size_t n, const chronon_format_options *o) {
	size_t i, ph, count[5] = {0};
	int kind = o ? o->kind : 0;
	const uint8_t *roles = o ? o->roles : NULL;
	for (i = 0; i < n; i++)
		if (types[i] < CHRONON_INT8 || types[i] > CHRONON_BOOL)
			return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": argument %zu has unknown type %u",
			                      text, i, types[i]);
	if (o != NULL && o->is_log && (o->log_level < 0 || o->log_level > 3))
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: log level %d is not 0..3", o->log_level);
	if (kind < CHRONON_KIND_INSTANT || kind > CHRONON_KIND_COUNTER)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": unknown event kind %d", text, kind);
	if ((ph = count_placeholders(text)) != n)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\" has %zu placeholders but %zu arguments",
		                      text, ph, n);
	for (i = 0; roles != NULL && i < n; i++) {
		int integer = types[i] >= CHRONON_INT8 && types[i] <= CHRONON_UINT64;
		int real = types[i] == CHRONON_FLOAT || types[i] == CHRONON_DOUBLE;
		if (roles[i] > CHRONON_ROLE_VALUE)
			return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": unknown argument role %u", text,
			                      roles[i]);
		count[roles[i]]++;
		if (roles[i] != CHRONON_ROLE_PLAIN && !integer && !(roles[i] == CHRONON_ROLE_VALUE && real))
			return chronon__failf(CHRONON_ERR_ARG,
			                      "chronon_format_register: format \"%s\": argument %zu: role %s cannot have type %s", text, i,
			                      role_names[roles[i]], chronon__type_name(types[i]));
	}
	for (i = CHRONON_ROLE_LANE; i <= CHRONON_ROLE_VALUE; i++)
		if (count[i] > 1)
			return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": more than one argument with role %s",
			                      text, role_names[i]);
	if (kind == CHRONON_KIND_SPAN_COMPLETE && count[CHRONON_ROLE_DURATION] != 1)
		return chronon__failf(CHRONON_ERR_ARG,
		                      "chronon_format_register: format \"%s\": a complete span needs one argument with role duration", text);
	if (kind == CHRONON_KIND_COUNTER && count[CHRONON_ROLE_VALUE] != 1)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": a counter needs one argument with role value",
		                      text);
	if (kind != CHRONON_KIND_SPAN_COMPLETE && count[CHRONON_ROLE_DURATION] != 0)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": only complete spans have a duration argument",
		                      text);
	if (kind != CHRONON_KIND_COUNTER && count[CHRONON_ROLE_VALUE] != 0)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: format \"%s\": only counters have a value argument", text);
	if (n_formats >= (1u << 20))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: more than 1048576 formats registered");
	return CHRONON_OK;
}

/* ---- The table ---- */

static chronon_status grow(uint32_t id) {
	size_t cap = table_cap ? table_cap : 64;
	entry *grown;
	if (id < table_cap)
		return CHRONON_OK;
	while (cap <= id)
		cap *= 2;
	grown = (entry *)realloc(table, cap * sizeof *table);
	if (grown == NULL)
		return chronon__fail(CHRONON_ERR_INTERNAL, "chronon_format_register: out of memory");
	memset(grown + table_cap, 0, (cap - table_cap) * sizeof *table);
	table = grown;
	table_cap = cap;
	return CHRONON_OK;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* fill computes the emit-side fields of a format (chronon.h reads them). */
static void fill(chronon_format *out, uint32_t id, const uint8_t *types, size_t n, const chronon_format_options *o) {
	uint32_t fixed = 0;
	uint8_t nstr = 0, *copy = (uint8_t *)malloc(n ? n : 1); /* permanent, like the format */
	uint64_t category = o != NULL && o->category != 0 ? o->category : CHRONON_CATEGORY_DEFAULT;
	size_t i;
	for (i = 0; i < n; i++) {
		copy[i] = types[i];
		fixed += chronon_arg_size(types[i]);
		nstr += types[i] == CHRONON_STRING;
	}
	memset(out, 0, sizeof *out);
	out->category = category;
	out->id_cat = (uint64_t)id | (uint64_t)(uint32_t)category << 32;
	out->argc_word = (uint64_t)n << 16;
	out->sig = chronon__sig(copy, n);
	out->check = chronon__format_check(out->id_cat, out->sig);
	out->types = copy;
	out->id = id;
	out->fixed_size = (uint16_t)fixed;
	out->arg_count = (uint8_t)n;
	out->n_strings = nstr;
}

/* push registers format e in Go (mu held) and checks that Go gave it the
 * id this file assigned. */
static chronon_status push(uint32_t id, const char *text, const chronon_format *f, const chronon_format_options *o) {
	uint32_t got = 0;
	chronon_status st = (chronon_status)chronon__go_format_register(
	    (char *)text, (uint8_t *)f->types, f->arg_count, (chronon_format_options *)o, &got, chronon__errbuf(), CHRONON__ERRBUF_SIZE);
	if (st != CHRONON_OK)
		return st;
	if (got != id)
		return chronon__failf(CHRONON_ERR_INTERNAL,
		                      "chronon_format_register: the Go registry gave format \"%s\" id %u, expected %u "
		                      "(something else registers formats in this process)",
		                      text, got, id);
	return CHRONON_OK;
}

/* flush_pending hands the queued formats to Go, in id order (mu held). */
static chronon_status flush_pending(void) {
	uint32_t id;
	for (id = n_formats - n_pending + 1; n_pending > 0; id++) {
		entry *e = &table[id];
		chronon_status st = push(id, e->text, &e->f, &e->opts);
		if (st != CHRONON_OK) {
			/* C accepted what Go refused: later ids would all be off. */
			chronon__failf(CHRONON_ERR_INTERNAL, "registering format %u, queued before the Go runtime started: %s", id,
			               chronon_last_error());
			return CHRONON_ERR_INTERNAL;
		}
		e->pending = 0;
		free(e->text), free(e->name), free(e->file), free(e->roles);
		e->text = e->name = e->file = NULL;
		e->roles = NULL;
		n_pending--;
	}
	return CHRONON_OK;
}

/* ---- Categories ---- */

typedef struct category {
	char *name, *description;
	uint64_t mask;
	int pending;
} category;

static category cats[64];
static int n_cats;

static chronon_status push_category(category *c) {
	chronon_status st = (chronon_status)chronon__go_category_name(c->mask, c->name, c->description, chronon__errbuf(),
	                                                               CHRONON__ERRBUF_SIZE);
	if (st == CHRONON_OK)
		c->pending = 0;
	return st;
}

chronon_status chronon_category_register(const char *name, const char *description, uint64_t *mask) {
	uint64_t used = CHRONON_CATEGORY_DEFAULT, m; /* never handed out: see chronon.h */
	chronon_status st = CHRONON_OK;
	int i;
	if (name == NULL || mask == NULL || name[0] == 0)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_category_register: name or mask is NULL, or the name is empty");
	*mask = 0;
	pthread_mutex_lock(&mu);
	for (i = 0; i < n_cats; i++) {
		if (strcmp(cats[i].name, name) == 0) {
			st = chronon__failf(CHRONON_ERR_ARG, "chronon_category_register: category \"%s\" already registered", name);
			goto out;
		}
		used |= cats[i].mask;
	}
	if (used == ~UINT64_C(0)) {
		st = chronon__fail(CHRONON_ERR_ARG,
		                   "chronon_category_register: all 63 category bits (all but CHRONON_CATEGORY_DEFAULT's) are named");
		goto out;
	}
	m = ~used & (used + 1); /* the lowest free bit */
	cats[n_cats].name = strdup(name);
	cats[n_cats].description = strdup(description ? description : "");
	cats[n_cats].mask = m;
	cats[n_cats].pending = 1;
	if (chronon__go_ready() && (st = push_category(&cats[n_cats])) != CHRONON_OK) {
		free(cats[n_cats].name), free(cats[n_cats].description);
		goto out;
	}
	n_cats++;
	*mask = m;
out:
	pthread_mutex_unlock(&mu);
	return st;
}

chronon_status chronon__registry_sync(void) {
	chronon_status st = CHRONON_OK;
	int i;
	pthread_mutex_lock(&mu);
	if (n_pending > 0)
		st = flush_pending();
	for (i = 0; i < n_cats && st == CHRONON_OK; i++)
		if (cats[i].pending)
			st = push_category(&cats[i]);
	pthread_mutex_unlock(&mu);
	return st;
}

chronon_status chronon_format_register(const char *text, const uint8_t *types, size_t n,
                                       const chronon_format_options *opts, chronon_format *out) {
	chronon_status st;
	uint32_t id;
	if (out == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: out is NULL");
	memset(out, 0, sizeof *out);
	if (text == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: text is NULL");
	if (types == NULL && n > 0)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: types is NULL");
	if (n > 255)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: %zu arguments (at most 255)", n);
	if (opts != NULL && opts->roles != NULL && n == 0)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: roles given for a format without arguments");

	pthread_mutex_lock(&mu);
	if ((st = check(text, types, n, opts)) != CHRONON_OK || (st = grow(n_formats + 1)) != CHRONON_OK)
		goto out;
	id = n_formats + 1;
	fill(&table[id].f, id, types, n, opts);
	if (chronon__go_ready()) {
		/* The Go runtime is up: queued formats first, then this one. */
		if (n_pending > 0 && (st = flush_pending()) != CHRONON_OK)
			goto out;
		if ((st = push(id, text, &table[id].f, opts)) != CHRONON_OK)
			goto out; /* Go refused it: the id stays free */
	} else {
		entry *e = &table[id];
		e->pending = 1;
		e->text = strdup(text);
		e->name = dup_or_null(opts ? opts->name : NULL);
		e->file = dup_or_null(opts ? opts->file : NULL);
		if (opts != NULL) {
			e->opts = *opts;
			if (opts->roles != NULL) {
				e->roles = (uint8_t *)malloc(n);
				memcpy(e->roles, opts->roles, n);
			}
		}
		e->opts.roles = e->roles;
		e->opts.name = e->name;
		e->opts.file = e->file;
		n_pending++;
	}
	n_formats = id;
	*out = table[id].f;
out:
	pthread_mutex_unlock(&mu);
	return st;
}

chronon_status chronon_format_get(uint32_t id, chronon_format *out) {
	int found;
	if (out == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_get: out is NULL");
	pthread_mutex_lock(&mu);
	found = id != 0 && id <= n_formats;
	if (found)
		*out = table[id].f;
	pthread_mutex_unlock(&mu);
	if (!found) {
		memset(out, 0, sizeof *out);
		return chronon__failf(CHRONON_ERR_FORMAT, "chronon_format_get: unknown format id %u", id);
	}
	return CHRONON_OK;
}
