/* args.c - chronon_emit_args (tagged arguments, checked, with the Go
 * runtime's string layout) and the explanations of failed inline checks.
 * Pure C: nothing here calls into Go. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* describe_sig writes "(uint64, bool)" for a signature (chronon__sig). */
static const char *describe_sig(uint64_t sig, char *buf, size_t cap) {
	size_t n = 0, i, count = sig & 15;
	if (sig == 0)
		return "(more than 14 arguments)";
	n += (size_t)snprintf(buf + n, cap - n, "(");
	for (i = 0; i < count && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
		                      chronon__type_name((int)((sig >> (4 + 4 * i)) & 15)));
	if (n < cap)
		snprintf(buf + n, cap - n, ")");
	return buf;
}

static int registered(const chronon_format *f) { return f->check == chronon__format_check(f->id_cat, f->sig); }

chronon_status chronon__begin_fail(const chronon_unit *u, const chronon_format *f, uint64_t want_sig,
                                   size_t args_size) {
	char a[256], b[256];
	if (u == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "emit: unit is NULL");
	if (f == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "emit: format is NULL");
	if (!registered(f))
		return chronon__failf(CHRONON_ERR_FORMAT,
		                      "emit: format id %u is not a registered format "
		                      "(zero-initialized, or altered after chronon_format_register)",
		                      f->id);
	if (want_sig != 0 && f->sig != want_sig)
		return chronon__failf(CHRONON_ERR_ARG, "emit: format %u takes %s, the emitter passes %s", f->id,
		                      describe_sig(f->sig, a, sizeof a), describe_sig(want_sig, b, sizeof b));
	if (want_sig == 0 && f->n_strings == 0)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_begin: args_size %zu, but format %u's arguments take %u bytes",
		                      args_size, f->id, f->fixed_size);
	if (want_sig == 0)
		return chronon__failf(CHRONON_ERR_ARG,
		                      "chronon_begin: args_size %zu, but format %u's arguments take at least %u bytes "
		                      "(%u of fixed-size arguments and one NUL per string) and at most %u",
		                      args_size, f->id, f->fixed_size + f->n_strings, f->fixed_size,
		                      CHRONON_MAX_ARGS_SIZE);
	return chronon__fail(CHRONON_ERR_INTERNAL, "emit: a check failed for no reason found");
}

chronon_status chronon__commit_fail(chronon_unit *u, uint8_t *start, uint8_t *p, uint32_t left, chronon_status st) {
	uint32_t put = (uint32_t)(p - start) - CHRONON_EVENT_HEADER;
	/* Take the event back: nothing was published since begin (only this
	 * thread seals the chunk), so rewinding off erases it. */
	u->off = (uint32_t)(start - u->chunk);
	if (st != CHRONON_OK)
		return chronon__failf(CHRONON_ERR_ARG,
		                      "chronon_commit: an argument did not fit the args_size given to chronon_begin "
		                      "(%u bytes put before it), or a string was NULL; event not recorded",
		                      put);
	return chronon__failf(CHRONON_ERR_ARG,
	                      "chronon_commit: %u bytes of arguments put, %u fewer than the args_size given to "
	                      "chronon_begin; event not recorded",
	                      put, left);
}

/* clip returns how many bytes of s are stored: up to the first NUL, at most
 * max (chronon/args.go clipString). */
static size_t clip(const char *s, long max) {
	if (max <= 0)
		return 0;
	return strnlen(s, (size_t)max);
}

chronon_status chronon_emit_args(chronon_unit *u, const chronon_format *f, uint64_t cycle,
                                 const chronon_arg *args, size_t n) {
	uint32_t lens[256];
	long budget;
	size_t i, k, nstr;
	uint32_t args_size;
	uint8_t *p;
	chronon_status st;
	if (u == NULL || f == NULL)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_emit_args: unit or format is NULL");
	if (!registered(f))
		return chronon__failf(CHRONON_ERR_FORMAT, "chronon_emit_args: format id %u is not a registered format", f->id);
	if (n != f->arg_count)
		return chronon__failf(CHRONON_ERR_ARG, "chronon_emit_args: format %u takes %u arguments, %zu given", f->id,
		                      f->arg_count, n);
	if (args == NULL && n > 0)
		return chronon__fail(CHRONON_ERR_ARG, "chronon_emit_args: args is NULL");
	for (i = 0; i < n; i++) {
		if (args[i].type != f->types[i])
			return chronon__failf(CHRONON_ERR_ARG, "chronon_emit_args: argument %zu is %s, format %u wants %s", i,
			                      chronon__type_name(args[i].type), f->id, chronon__type_name(f->types[i]));
		if (args[i].type == CHRONON_STRING && args[i].v.s == NULL)
			return chronon__failf(CHRONON_ERR_ARG, "chronon_emit_args: argument %zu is a NULL string", i);
	}
	if ((__atomic_load_n(&u->mask, __ATOMIC_RELAXED) & f->category) == 0 || cycle - u->win_lo > u->win_span)
		return CHRONON_DISABLED;

	/* The string layout of chronon/args.go layoutStrings: each string is
	 * cut at its NUL and to what is left of max_args, keeping one byte for
	 * the terminator of every later string. */
	budget = (long)u->max_args - f->fixed_size;
	nstr = f->n_strings;
	for (i = 0, k = 0; i < n; i++) {
		if (args[i].type != CHRONON_STRING)
			continue;
		nstr--;
		lens[k] = (uint32_t)clip(args[i].v.s, budget - (long)nstr - 1);
		budget -= (long)lens[k] + 1;
		k++;
	}
	args_size = (uint32_t)((long)u->max_args - budget);

	st = chronon__begin_raw(u, f, cycle, args_size, &p);
	if (st != CHRONON_OK)
		return st;
	for (i = 0, k = 0; i < n; i++) {
		const chronon_arg *a = &args[i];
		switch (a->type) {
		case CHRONON_INT8: p = chronon__st_i8(p, (int8_t)a->v.i); break;
		case CHRONON_INT16: p = chronon__st_i16(p, (int16_t)a->v.i); break;
		case CHRONON_INT32: p = chronon__st_i32(p, (int32_t)a->v.i); break;
		case CHRONON_INT64: p = chronon__st_i64(p, a->v.i); break;
		case CHRONON_UINT8: p = chronon__st_u8(p, (uint8_t)a->v.u); break;
		case CHRONON_UINT16: p = chronon__st_u16(p, (uint16_t)a->v.u); break;
		case CHRONON_UINT32: p = chronon__st_u32(p, (uint32_t)a->v.u); break;
		case CHRONON_UINT64: p = chronon__st_u64(p, a->v.u); break;
		case CHRONON_FLOAT: p = chronon__st_f32(p, a->v.f); break;
		case CHRONON_DOUBLE: p = chronon__st_f64(p, a->v.d); break;
		case CHRONON_POINTER: p = chronon__st_ptr(p, a->v.p); break;
		case CHRONON_BOOL: p = chronon__st_bool(p, a->v.b); break;
		case CHRONON_STRING:
			memcpy(p, a->v.s, lens[k]);
			p[lens[k]] = 0;
			p += lens[k] + 1;
			k++;
			break;
		}
	}
	return CHRONON_OK;
}
