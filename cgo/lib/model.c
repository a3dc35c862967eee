/* model.c - the trace model's helpers: spans, counters, async spans and
 * pipeline stages, registered as the Go runtime registers them
 * (chronon/spans.go, async.go, stages.go): the same texts, kinds, roles and
 * names, so that a C, C++ or Go simulator describes a span, a counter, a
 * task or a stage identically and an identical registration from any of
 * them is one format. Pure C, through chronon_format_register: usable from
 * static constructors, before the Go runtime starts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* cat returns a + b (malloc'd), or NULL when out of memory. */
static char *cat(const char *a, const char *b) {
	size_t na = strlen(a), nb = strlen(b);
	char *s = (char *)malloc(na + nb + 1);
	if (s != NULL) {
		memcpy(s, a, na);
		memcpy(s + na, b, nb + 1);
	}
	return s;
}

/* reg registers name + suffix with kind and roles, opts' category, source
 * and log flag, and display name opts->name or else name. */
static chronon_status reg(const char *fn, const char *name, const char *suffix, const uint8_t *types, const uint8_t *roles,
                          size_t n, int kind, const chronon_format_options *opts, chronon_format *out) {
	chronon_format_options o;
	chronon_status st;
	char *text = cat(name, suffix);
	if (text == NULL)
		return chronon__failf(CHRONON_ERR_INTERNAL, "%s: out of memory", fn);
	memset(&o, 0, sizeof o);
	if (opts != NULL)
		o = *opts;
	if (o.name == NULL || o.name[0] == 0)
		o.name = name;
	o.kind = kind;
	o.roles = roles;
	st = chronon_format_register(text, types, n, &o, out);
	free(text);
	return st;
}

static chronon_status need_name(const char *fn, const char *what, const void *out, const char *name) {
	if (out == NULL)
		return chronon__failf(CHRONON_ERR_ARG, "%s: out is NULL", fn);
	if (name == NULL || name[0] == 0)
		return chronon__failf(CHRONON_ERR_ARG, "%s: the %s name is empty", fn, what);
	return CHRONON_OK;
}

chronon_status chronon_span_register(const char *name, const chronon_format_options *opts, chronon_span *out) {
	static const uint8_t t2[] = {CHRONON_UINT32, CHRONON_UINT64}, t3[] = {CHRONON_UINT32, CHRONON_UINT64, CHRONON_UINT64};
	static const uint8_t r2[] = {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW},
	                     r3[] = {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW, CHRONON_ROLE_DURATION};
	static const char fn[] = "chronon_span_register";
	chronon_status st = need_name(fn, "span", out, name);
	chronon_span s;
	if (st != CHRONON_OK)
		return st;
	memset(out, 0, sizeof *out);
	if ((st = reg(fn, name, " begin lane={} flow={}", t2, r2, 2, CHRONON_KIND_SPAN_BEGIN, opts, &s.begin)) != CHRONON_OK ||
	    (st = reg(fn, name, " end lane={} flow={}", t2, r2, 2, CHRONON_KIND_SPAN_END, opts, &s.end)) != CHRONON_OK ||
	    (st = reg(fn, name, " lane={} flow={} dur={}", t3, r3, 3, CHRONON_KIND_SPAN_COMPLETE, opts, &s.complete)) != CHRONON_OK)
		return st; /* all or nothing: out stays zero (its emits fail with CHRONON_ERR_FORMAT) */
	*out = s;
	return CHRONON_OK;
}

chronon_status chronon_counter_register(const char *name, int value_type, const chronon_format_options *opts,
                                        chronon_format *out) {
	static const uint8_t role[] = {CHRONON_ROLE_VALUE};
	static const char fn[] = "chronon_counter_register";
	uint8_t type = (uint8_t)value_type;
	chronon_status st = need_name(fn, "counter", out, name);
	if (st != CHRONON_OK)
		return st;
	memset(out, 0, sizeof *out);
	if (value_type < CHRONON_INT8 || value_type > CHRONON_DOUBLE)
		return chronon__failf(CHRONON_ERR_ARG, "%s: counter \"%s\": the value type %d is not an integer, float or double type", fn,
		                      name, value_type);
	return reg(fn, name, "={}", &type, role, 1, CHRONON_KIND_COUNTER, opts, out);
}

chronon_status chronon_async_register(const char *name, const char *arg_text, const uint8_t *arg_types, size_t n,
                                      const chronon_format_options *opts, chronon_async *out) {
	static const uint8_t t1[] = {CHRONON_UINT64}, r1[] = {CHRONON_ROLE_ID};
	static const char fn[] = "chronon_async_register";
	uint8_t types[255], roles[255];
	chronon_format_options o;
	chronon_async a;
	char *suffix;
	chronon_status st = need_name(fn, "span", out, name);
	if (st != CHRONON_OK)
		return st;
	memset(out, 0, sizeof *out);
	if (n > 253)
		return chronon__failf(CHRONON_ERR_ARG, "%s: span \"%s\": %zu more arguments (at most 253)", fn, name, n);
	if (n > 0 && (arg_text == NULL || arg_types == NULL))
		return chronon__failf(CHRONON_ERR_ARG, "%s: span \"%s\": %zu more arguments but no arg_text or arg_types", fn, name, n);
	types[0] = types[1] = CHRONON_UINT64;
	roles[0] = CHRONON_ROLE_ID;
	roles[1] = CHRONON_ROLE_PARENT;
	if (n > 0)
		memcpy(types + 2, arg_types, n);
	memset(roles + 2, CHRONON_ROLE_PLAIN, n);
	if (opts != NULL && opts->roles != NULL && n > 0)
		memcpy(roles + 2, opts->roles, n);
	memset(&o, 0, sizeof o);
	if (opts != NULL)
		o = *opts;
	o.roles = NULL;
	/* The begin's text as Go's asyncText makes it: "NAME begin id={} parent={}" and " ARG_TEXT". */
	suffix = n > 0 || (arg_text != NULL && arg_text[0] != 0) ? cat(" begin id={} parent={} ", arg_text)
	                                                          : cat(" begin id={} parent={}", "");
	if (suffix == NULL)
		return chronon__failf(CHRONON_ERR_INTERNAL, "%s: out of memory", fn);
	st = reg(fn, name, suffix, types, roles, n + 2, CHRONON_KIND_ASYNC_BEGIN, &o, &a.begin);
	free(suffix);
	if (st == CHRONON_OK)
		st = reg(fn, name, " end id={}", t1, r1, 1, CHRONON_KIND_ASYNC_END, &o, &a.end);
	if (st == CHRONON_OK)
		*out = a;
	return st;
}

chronon_status chronon_stages_register(const char *const *names, size_t n, const chronon_format_options *opts,
                                       chronon_stages *out) {
	static const uint8_t t1[] = {CHRONON_UINT64}, r1[] = {CHRONON_ROLE_FLOW};
	static const char fn[] = "chronon_stages_register";
	chronon_format_options o;
	chronon_span *spans;
	chronon_stages s;
	chronon_status st = CHRONON_OK;
	size_t i, j;
	if (out == NULL)
		return chronon__failf(CHRONON_ERR_ARG, "%s: out is NULL", fn);
	memset(out, 0, sizeof *out);
	if (names == NULL || n == 0 || n > 65535)
		return chronon__failf(CHRONON_ERR_ARG, "%s: %zu stage names (1..65535)", fn, names == NULL ? 0 : n);
	for (i = 0; i < n; i++) {
		if (names[i] == NULL || names[i][0] == 0)
			return chronon__failf(CHRONON_ERR_ARG, "%s: stage %zu has no name", fn, i);
		for (j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				return chronon__failf(CHRONON_ERR_ARG, "%s: stage \"%s\" named twice", fn, names[i]);
	}
	memset(&o, 0, sizeof o);
	if (opts != NULL)
		o = *opts;
	o.name = NULL; /* each stage is named by its name */
	spans = (chronon_span *)calloc(n, sizeof *spans); /* permanent, like the formats */
	if (spans == NULL)
		return chronon__failf(CHRONON_ERR_INTERNAL, "%s: out of memory", fn);
	for (i = 0; i < n && st == CHRONON_OK; i++)
		st = chronon_span_register(names[i], &o, &spans[i]);
	/* Go's texts and kinds (chronon.WithRetire, chronon.WithFlush); their
	 * display names are derived from the texts, as Go derives them. */
	if (st == CHRONON_OK) {
		o.kind = CHRONON_KIND_RETIRE;
		o.roles = r1;
		st = chronon_format_register("retire flow={}", t1, 1, &o, &s.retire);
	}
	if (st == CHRONON_OK) {
		o.kind = CHRONON_KIND_FLUSH;
		st = chronon_format_register("squash flow={}", t1, 1, &o, &s.squash);
	}
	if (st != CHRONON_OK) {
		free(spans);
		return st;
	}
	s.spans = spans;
	s.n = n;
	*out = s;
	return CHRONON_OK;
}
