// SPDX-License-Identifier: MIT
/*
 * A trigger's `if FILTER` (common/evtrigger_filter.h) on the event-filter
 * engine (common/evfilter.h).  A hit's record for the filter is the
 * kernel's: the common fields (common_pid at 4), then the argument slots
 * from offset 8.  A string field is a string: its slot in a hit holds the
 * address of its text (the runtime copied a probe's strings first), and
 * the record the filter judges has its __data_loc there and the texts
 * after the slots, as a recorded event has them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter.h"
#include "common/evtrigger_filter.h"

#define STR_MAX 256 /* a string's bytes in the record, its NUL included (as a probe's) */

struct ut_evtrig_filter {
	struct ut_evf *prog;
	uint32_t strings;	/* bit i: slot i is a string field the filter names */
	uint32_t is_str;	/* bit i: slot i is a string field (named or not) */
	uint16_t strsize[UT_USDT_MAX_ARGS]; /* a char[N]'s N (its text may fill it), 0: NUL-ended */
};

/* @fmt's fields; NULL (the event is not known yet): arg1..arg12, 8-byte numbers. */
static size_t fields_of(const struct ut_evfmt *fmt, struct ut_evf_field *out)
{
	struct ut_evfmt any = {.nargs = UT_USDT_MAX_ARGS};

	if (!fmt) {
		for (unsigned i = 0; i < UT_USDT_MAX_ARGS; i++) {
			any.size[i] = 8;
			any.is_signed[i] = 1;
		}
		fmt = &any;
	}
	return ut_evfmt_fields(fmt, out);
}

int ut_evtrig_filter_check(const char *filter, const struct ut_evfmt *fmt, const char **msg,
			   size_t *pos)
{
	struct ut_evf_field f[UT_USDT_MAX_ARGS];
	struct ut_evf_error e = {0};
	struct ut_evf *prog = NULL;
	int ret = ut_evf_parse(filter, f, fields_of(fmt, f), &prog, &e);

	ut_evf_free(prog);
	if (!ret)
		return 0;
	*msg = ut_evf_errtext(e.code);
	*pos = e.pos > 0 ? (size_t)e.pos : 0;
	return ret == -ENOMEM ? -ENOMEM : -EINVAL;
}

struct ut_evtrig_filter *ut_evtrig_filter_compile(const char *filter, const struct ut_evfmt *fmt)
{
	struct ut_evf_field f[UT_USDT_MAX_ARGS];
	struct ut_evf_error e = {0};
	struct ut_evtrig_filter *t = calloc(1, sizeof(*t));

	if (t && ut_evf_parse(filter, f, fields_of(fmt, f), &t->prog, &e)) {
		free(t);
		return NULL;
	}
	if (t)
		t->strings = ut_evtrig_filter_strings(filter, fmt);
	for (unsigned i = 0; t && fmt && i < fmt->nargs && i < UT_USDT_MAX_ARGS; i++) {
		t->strsize[i] = fmt->strsize[i];
		if (fmt->is_string[i])
			t->is_str |= 1u << i;
	}
	return t;
}

static bool word_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Whether @name is a word of @text (outside quotes or not: at worst a string read for nothing). */
static bool names(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; n && (p = strstr(p, name)) != NULL; p++)
		if ((p == text || !word_char(p[-1])) && !word_char(p[n]))
			return true;
	return false;
}

uint32_t ut_evtrig_filter_strings(const char *filter, const struct ut_evfmt *fmt)
{
	uint32_t m = 0;
	char nb[16];

	for (unsigned i = 0; fmt && i < fmt->nargs && i < UT_USDT_MAX_ARGS; i++) {
		snprintf(nb, sizeof(nb), "arg%u", i + 1);
		if (fmt->is_string[i] && (names(filter, nb) ||
					  (fmt->argname[i][0] && names(filter, fmt->argname[i]))))
			m |= 1u << i;
	}
	return m;
}

/* The text at address @a (0: none, an empty string) after the slots of @rec at *@used: its __data_loc. */
static uint64_t put_string(uint8_t *rec, unsigned nargs, size_t *used, uint64_t a, unsigned max)
{
	const char *s = (const char *)(uintptr_t)a;
	size_t at = 8 + 8 * (size_t)nargs + *used, n = 0;

	if (!s)
		return 0;
	if (!max || max > STR_MAX)
		max = STR_MAX;
	while (n + 1 < max && s[n]) /* a char[N] may fill its N bytes: N - 1 kept, as a key */
		n++;
	memcpy(rec + at, s, n);
	rec[at + n] = '\0';
	*used += n + 1;
	return (uint64_t)(n + 1) << 16 | at;
}

bool ut_evtrig_filter_match(const struct ut_evtrig_filter *f, const uint64_t *args,
			    unsigned nargs, const struct ut_evtrig_ctx *ctx)
{
	uint64_t rec[1 + UT_USDT_MAX_ARGS + UT_USDT_MAX_ARGS * STR_MAX / 8];
	struct ut_evf_ctx c = {.cpu = ctx->cpu, .comm = ctx->comm};
	int32_t pid = ctx->pid;
	size_t used = 0;

	if (!f)
		return true;
	if (nargs > UT_USDT_MAX_ARGS)
		nargs = UT_USDT_MAX_ARGS;
	rec[0] = 0;
	memcpy((uint8_t *)rec + 4, &pid, sizeof(pid));
	for (unsigned i = 0; i < nargs; i++) /* a string it does not name: not read (no text) */
		rec[1 + i] = (f->strings >> i & 1)
				 ? put_string((uint8_t *)rec, nargs, &used, args[i], f->strsize[i])
			     : (f->is_str >> i & 1) ? 0
							    : args[i];
	return ut_evf_match(f->prog, rec, 8 + 8 * (size_t)nargs + used, &c);
}

void ut_evtrig_filter_free(struct ut_evtrig_filter *f)
{
	if (f)
		ut_evf_free(f->prog);
	free(f);
}
