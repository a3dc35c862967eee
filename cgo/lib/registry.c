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
 * An identical registration (chronon/registry.go formatKey's identity:
 * text, types, roles, kind, display name as Go derives it, category, log
 * level) returns the format registered first, found here by a hash index,
 * so that it works before Go starts too; Go, which deduplicates the same
 * way, never sees the second one.
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
	chronon_format f; /* what chronon_format_register returned */
	/* The format's identity, kept for good: two registrations with the
	 * same identity are one format (chronon/registry.go formatKey). */
	uint64_t hash;
	char *text;
	char *name;      /* the display name the schema records ("" for instants without one) */
	uint8_t *roles;  /* arg_count roles, NULL when all are plain */
	int32_t kind;
	int32_t is_log, log_level; /* log_level 0 unless is_log */
	/* Until the format is registered in Go: what to register it with. */
	int pending;
	char *given_name, *file;
	chronon_format_options opts;
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static entry *table; /* index: id; table[0] unused */
static size_t table_cap;
static uint32_t n_formats; /* ids 1..n_formats are taken */
static uint32_t n_pending; /* pending formats have the highest ids */
static uint32_t *index_;   /* open addressing by identity hash: format ids, 0 empty */
static size_t index_cap;   /* a power of two, at least twice n_formats */

/* ---- The Go runtime's rules (chronon/format.go register, checkKind,
 *      checkRoleType, defaultName; schema.Placeholders) ---- */

/* first_placeholder returns the start of the first placeholder of s and
 * counts them all in *count: a '{' that is not the last byte opens a
 * placeholder that runs to the next '}'; no closing brace: the rest is
 * text. Returns strlen(s) when there is none. */
static size_t first_placeholder(const char *s, size_t *count) {
	size_t n = 0, len = strlen(s), first = len, i, j;
	for (i = 0; i < len; i++) {
		if (s[i] != '{' || i + 1 >= len)
			continue;
		for (j = i + 1; j < len && s[j] != '}'; j++)
			;
		if (j >= len)
			break;
		if (n++ == 0)
			first = i;
		i = j;
	}
	*count = n;
	return first;
}

static size_t count_placeholders(const char *s) {
	size_t n;
	first_placeholder(s, &n);
	return n;
}

/* default_name is the display name of a format registered without one
 * (chronon/format.go defaultName): its text before the first placeholder,
 * without trailing ' ', '=' or ':', or the whole text if that is empty. */
static char *default_name(const char *text) {
	size_t n, end = first_placeholder(text, &n);
	while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '=' || text[end - 1] == ':'))
		end--;
	return end == 0 ? strdup(text) : strndup(text, end);
}

#define N_KINDS (CHRONON_KIND_RETIRE + 1)
#define N_ROLES (CHRONON_ROLE_SYMBOL + 1)
static const char *const role_names[N_ROLES] = {"plain", "lane", "flow", "duration", "value", "depends", "id", "parent", "symbol"};
static const char *const kind_names[N_KINDS] = {"instant", "span-begin", "span-end", "span-complete", "counter",
                                                "flush", "async-begin", "async-end", "retire"};

#define FAIL(...) chronon__failf(CHRONON_ERR_ARG, "chronon_format_register: " __VA_ARGS__)

/* check_kind is chronon/format.go checkKind: the arguments a kind needs. */
static chronon_status check_kind(const char *text, int kind, const size_t count[N_ROLES]) {
	int async = kind == CHRONON_KIND_ASYNC_BEGIN || kind == CHRONON_KIND_ASYNC_END;
	size_t r;
	for (r = CHRONON_ROLE_LANE; r <= CHRONON_ROLE_PARENT; r++) /* several symbols are fine */
		if (count[r] > 1)
			return FAIL("format \"%s\": more than one argument with role %s", text, role_names[r]);
	if (async && count[CHRONON_ROLE_ID] != 1)
		return FAIL("format \"%s\": an async span begin or end needs one argument with role id (the span's id)", text);
	if (async && count[CHRONON_ROLE_LANE] != 0)
		return FAIL("format \"%s\": async spans have no lane: the exporters give them rows", text);
	if (count[CHRONON_ROLE_ID] != 0 && !async && kind != CHRONON_KIND_INSTANT)
		return FAIL("format \"%s\": only async spans and instants have an id argument", text);
	if (count[CHRONON_ROLE_PARENT] != 0 && kind != CHRONON_KIND_ASYNC_BEGIN && kind != CHRONON_KIND_INSTANT &&
	    kind != CHRONON_KIND_SPAN_BEGIN && kind != CHRONON_KIND_SPAN_COMPLETE)
		return FAIL("format \"%s\": a %s has no parent: parents are on span begins and instants", text, kind_names[kind]);
	if (kind == CHRONON_KIND_RETIRE && count[CHRONON_ROLE_FLOW] != 1)
		return FAIL("format \"%s\": a retire needs one argument with role flow (the instruction retired)", text);
	if (kind == CHRONON_KIND_SPAN_COMPLETE && count[CHRONON_ROLE_DURATION] != 1)
		return FAIL("format \"%s\": a complete span needs one argument with role duration", text);
	if (kind == CHRONON_KIND_COUNTER && count[CHRONON_ROLE_VALUE] != 1)
		return FAIL("format \"%s\": a counter needs one argument with role value", text);
	if (kind != CHRONON_KIND_SPAN_COMPLETE && count[CHRONON_ROLE_DURATION] != 0)
		return FAIL("format \"%s\": only complete spans have a duration argument", text);
	if (kind != CHRONON_KIND_COUNTER && count[CHRONON_ROLE_VALUE] != 0)
		return FAIL("format \"%s\": only counters have a value argument", text);
	if (kind == CHRONON_KIND_FLUSH && count[CHRONON_ROLE_FLOW] != 1)
		return FAIL("format \"%s\": a flush needs one argument with role flow (the instruction squashed)", text);
	if (count[CHRONON_ROLE_DEPENDS] != 0 && count[CHRONON_ROLE_FLOW] != 1)
		return FAIL("format \"%s\": a dependency needs one argument with role flow (the instruction that depends)", text);
	return CHRONON_OK;
}

/* check_role_type is chronon/format.go checkRoleType: lanes, flows, ids
 * and durations are integers, counter values may also be floating point,
 * symbols are uint32. */
static chronon_status check_role_type(const char *text, size_t i, int role, int type) {
	int integer = type >= CHRONON_INT8 && type <= CHRONON_UINT64;
	if (role == CHRONON_ROLE_PLAIN)
		return CHRONON_OK;
	if (role == CHRONON_ROLE_SYMBOL && type != CHRONON_UINT32)
		return FAIL("format \"%s\": argument %zu: role symbol needs type uint32 (chronon.Symbol), not %s", text, i,
		            chronon__type_name(type));
	if (role == CHRONON_ROLE_VALUE && (integer || type == CHRONON_FLOAT || type == CHRONON_DOUBLE))
		return CHRONON_OK;
	if (role != CHRONON_ROLE_VALUE && integer)
		return CHRONON_OK;
	return FAIL("format \"%s\": argument %zu: role %s cannot have type %s", text, i, role_names[role], chronon__type_name(type));
}

/* check validates a registration in the order the Go runtime does, so that
 * C refuses exactly what Go would (a format accepted here before the Go
 * runtime started must not be refused when it is handed over). */
static chronon_status check(const char *text, const uint8_t *types, size_t n, const chronon_format_options *o) {
	size_t i, ph, count[N_ROLES] = {0};
	int kind = o ? o->kind : 0;
	const uint8_t *roles = o ? o->roles : NULL;
	chronon_status st;
	for (i = 0; i < n; i++)
		if (types[i] < CHRONON_INT8 || types[i] > CHRONON_BOOL)
			return FAIL("format \"%s\": argument %zu has unknown type %u", text, i, types[i]);
	if (kind < CHRONON_KIND_INSTANT || kind >= N_KINDS)
		return FAIL("format \"%s\": unknown event kind %d", text, kind);
	for (i = 0; roles != NULL && i < n; i++)
		if (roles[i] >= N_ROLES)
			return FAIL("format \"%s\": unknown argument role %u", text, roles[i]);
	if (o != NULL && o->is_log && (o->log_level < 0 || o->log_level > 3))
		return FAIL("log level %d is not 0..3", o->log_level);
	if ((ph = count_placeholders(text)) != n)
		return FAIL("format \"%s\" has %zu placeholders but %zu arguments", text, ph, n);
	for (i = 0; roles != NULL && i < n; i++)
		count[roles[i]]++;
	if ((st = check_kind(text, kind, count)) != CHRONON_OK)
		return st;
	for (i = 0; roles != NULL && i < n; i++)
		if ((st = check_role_type(text, i, roles[i], types[i])) != CHRONON_OK)
			return st;
	if (n_formats >= (1u << 20))
		return chronon__fail(CHRONON_ERR_ARG, "chronon_format_register: more than 1048576 formats registered");
	return CHRONON_OK;
}

/* chronon__format_validate runs check alone, registering nothing: the
 * tests compare it with the Go runtime's rules case by case. */
chronon_status chronon__format_validate(const char *text, const uint8_t *types, size_t n, const chronon_format_options *o) {
	chronon_status st;
	pthread_mutex_lock(&mu);
	st = check(text, types, n, o);
	pthread_mutex_unlock(&mu);
	return st;
}

/* ---- Identity: identical registrations are one format ---- */

typedef struct key {
	const char *text;
	char *name; /* owned */
	const uint8_t *types, *roles;
	size_t n;
	int32_t kind, is_log, log_level;
	uint64_t category;
	uint64_t hash;
} key;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
	const uint8_t *b = (const uint8_t *)p;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

/* make_key computes what makes a registration the format it is: text,
 * argument types and roles, kind, display name (derived as Go derives it),
 * category, log flag and level; not the source location. NULL roles and
 * all-plain roles are the same. */
static chronon_status make_key(key *k, const char *text, const uint8_t *types, size_t n, const chronon_format_options *o) {
	size_t i;
	uint8_t zero = 0;
	memset(k, 0, sizeof *k);
	k->text = text;
	k->types = types;
	k->n = n;
	k->kind = o ? o->kind : 0;
	k->is_log = o != NULL && o->is_log != 0;
	k->log_level = k->is_log ? o->log_level : 0;
	k->category = o != NULL && o->category != 0 ? o->category : CHRONON_CATEGORY_DEFAULT;
	k->roles = o != NULL ? o->roles : NULL;
	if (k->roles != NULL) {
		for (i = 0; i < n && k->roles[i] == CHRONON_ROLE_PLAIN; i++)
			;
		if (i == n)
			k->roles = NULL;
	}
	if (o != NULL && o->name != NULL && o->name[0] != 0)
		k->name = strdup(o->name);
	else if (k->kind != CHRONON_KIND_INSTANT)
		k->name = default_name(text);
	else
		k->name = strdup("");
	if (k->name == NULL)
		return chronon__fail(CHRONON_ERR_INTERNAL, "chronon_format_register: out of memory");
	k->hash = fnv(UINT64_C(0xcbf29ce484222325), text, strlen(text) + 1);
	k->hash = fnv(k->hash, k->name, strlen(k->name) + 1);
	k->hash = fnv(k->hash, &n, sizeof n);
	if (n > 0)
		k->hash = fnv(k->hash, types, n);
	for (i = 0; i < n; i++)
		k->hash = fnv(k->hash, k->roles ? &k->roles[i] : &zero, 1);
	k->hash = fnv(k->hash, &k->kind, sizeof k->kind);
	k->hash = fnv(k->hash, &k->is_log, sizeof k->is_log);
	k->hash = fnv(k->hash, &k->log_level, sizeof k->log_level);
	k->hash = fnv(k->hash, &k->category, sizeof k->category);
	return CHRONON_OK;
}

static int same(const entry *e, const key *k) {
	size_t i;
	if (e->hash != k->hash || e->f.arg_count != k->n || e->kind != k->kind || e->is_log != k->is_log ||
	    e->log_level != k->log_level || e->f.category != k->category || strcmp(e->text, k->text) != 0 ||
	    strcmp(e->name, k->name) != 0 || (k->n > 0 && memcmp(e->f.types, k->types, k->n) != 0))
		return 0;
	for (i = 0; i < k->n; i++)
		if ((e->roles ? e->roles[i] : 0) != (k->roles ? k->roles[i] : 0))
			return 0;
	return 1;
}

/* lookup returns the id of the format with identity k, or 0 (mu held). */
static uint32_t lookup(const key *k) {
	size_t i;
	if (index_cap == 0)
		return 0;
	for (i = (size_t)k->hash & (index_cap - 1); index_[i] != 0; i = (i + 1) & (index_cap - 1))
		if (same(&table[index_[i]], k))
			return index_[i];
	return 0;
}

static void index_put(uint32_t id) {
	size_t i;
	for (i = (size_t)table[id].hash & (index_cap - 1); index_[i] != 0; i = (i + 1) & (index_cap - 1))
		;
	index_[i] = id;
}

/* index_grow makes room for one more id in the index (mu held). */
static chronon_status index_grow(void) {
	size_t cap = index_cap ? index_cap : 128;
	uint32_t id, *old = index_;
	while (cap < 2 * ((size_t)n_formats + 1))
		cap *= 2;
	if (cap == index_cap)
		return CHRONON_OK;
	index_ = (uint32_t *)calloc(cap, sizeof *index_);
	if (index_ == NULL) {
		index_ = old;
		return chronon__fail(CHRONON_ERR_INTERNAL, "chronon_format_register: out of memory");
	}
	index_cap = cap;
	for (id = 1; id <= n_formats; id++)
		if (table[id].text != NULL)
			index_put(id);
	free(old);
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
		free(e->given_name), free(e->file);
		e->given_name = e->file = NULL;
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

/* keep stores the identity of format id (mu held); the strings become
 * the entry's. */
static chronon_status keep(uint32_t id, key *k) {
	entry *e = &table[id];
	e->hash = k->hash;
	e->text = strdup(k->text);
	e->name = k->name;
	k->name = NULL;
	e->kind = k->kind;
	e->is_log = k->is_log;
	e->log_level = k->log_level;
	e->roles = NULL;
	if (k->roles != NULL && (e->roles = (uint8_t *)malloc(k->n)) != NULL)
		memcpy(e->roles, k->roles, k->n);
	if (e->text == NULL || (k->roles != NULL && e->roles == NULL)) {
		free(e->text), free(e->name), free(e->roles);
		return chronon__fail(CHRONON_ERR_INTERNAL, "chronon_format_register: out of memory");
	}
	return CHRONON_OK;
}

chronon_status chronon_format_register(const char *text, const uint8_t *types, size_t n,
                                       const chronon_format_options *opts, chronon_format *out) {
	chronon_status st;
	uint32_t id;
	key k;
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

	memset(&k, 0, sizeof k);
	pthread_mutex_lock(&mu);
	if ((st = check(text, types, n, opts)) != CHRONON_OK || (st = make_key(&k, text, types, n, opts)) != CHRONON_OK)
		goto out;
	if ((id = lookup(&k)) != 0) {
		/* The same registration again (a helper registering on behalf of
		 * several callers, a C++ object per translation unit): the same
		 * format, as in the Go runtime. The first one's source location
		 * stays in the schema. */
		*out = table[id].f;
		goto out;
	}
	if ((st = grow(n_formats + 1)) != CHRONON_OK || (st = index_grow()) != CHRONON_OK)
		goto out;
	id = n_formats + 1;
	fill(&table[id].f, id, types, n, opts);
	if (chronon__go_ready()) {
		/* The Go runtime is up: queued formats first, then this one. */
		if (n_pending > 0 && (st = flush_pending()) != CHRONON_OK)
			goto out;
		if ((st = push(id, text, &table[id].f, opts)) != CHRONON_OK)
			goto out; /* Go refused it: the id stays free */
		n_formats = id;
		*out = table[id].f;
		if (keep(id, &k) == CHRONON_OK) /* else (out of memory) it is registered, just never found again */
			index_put(id);
		goto out;
	} else {
		entry *e = &table[id];
		if ((st = keep(id, &k)) != CHRONON_OK)
			goto out;
		e->pending = 1;
		e->given_name = dup_or_null(opts ? opts->name : NULL);
		e->file = dup_or_null(opts ? opts->file : NULL);
		memset(&e->opts, 0, sizeof e->opts);
		if (opts != NULL)
			e->opts = *opts;
		e->opts.roles = e->roles; /* NULL when all plain: the same to Go */
		e->opts.name = e->given_name;
		e->opts.file = e->file;
		n_pending++;
	}
	n_formats = id;
	index_put(id);
	*out = table[id].f;
out:
	pthread_mutex_unlock(&mu);
	free(k.name);
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
