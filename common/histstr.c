// SPDX-License-Identifier: MIT
/*
 * The layout of a hist table entry's strings (common/histstr.h), the one
 * the runtime writes and the readers read.
 */
#include <string.h>

#include "common/histstr.h"
#include "common/usdt_events.h"

static unsigned round8(unsigned n)
{
	return (n + 7) & ~7u;
}

void ut_hist_str_copy(char *dst, size_t size, uint64_t src)
{
	const char *s = (const char *)(uintptr_t)src;
	size_t n = 0;

	while (s && n + 1 < size && s[n]) {
		dst[n] = s[n];
		n++;
	}
	memset(dst + n, 0, size - n);
}

uint64_t ut_hist_str_key(char *dst, size_t size, uint64_t src)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	ut_hist_str_copy(dst, size, src);
	for (size_t i = 0; i < size && dst[i]; i++)
		h = (h ^ (unsigned char)dst[i]) * 0x100000001b3ULL;
	return h;
}

unsigned ut_hist_str_keysize(const struct ut_evfmt *fmt, int slot)
{
	if (!fmt || slot < 0 || slot >= fmt->nargs || !fmt->is_string[slot])
		return 0;
	return fmt->strsize[slot] ? round8(fmt->strsize[slot]) : UT_HIST_STR_MAX;
}

bool ut_hist_var_is_string(const struct ut_evtrig *t, const struct ut_evfmt *fmt, unsigned i)
{
	const struct ut_hist_var *v = &t->hv.vars[i];

	return i < t->hv.nvars && v->nops == 1 && v->op[0].kind == UT_HO_FIELD &&
	       ut_hist_str_keysize(fmt, ut_hist_field_slot(fmt, v->op[0].name)) > 0;
}

/* Whether save param @j of a save action of @t is a string (a string field or variable). */
static bool save_is_string(const struct ut_evtrig *t, const struct ut_evfmt *fmt, unsigned j)
{
	for (uint8_t i = 0; i < t->hv.nactions; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];
		const struct ut_hist_var *v;

		if (a->action != UT_HA_SAVE || j >= a->nparams)
			continue;
		v = a->param[j][0] == '$' ? ut_histvar_find(&t->hv, a->param[j] + 1) : NULL;
		if (v ? ut_hist_var_is_string(t, fmt, (unsigned)(v - t->hv.vars))
		      : ut_hist_str_keysize(fmt, ut_hist_field_slot(fmt, a->param[j])) > 0)
			return true;
	}
	return false;
}

void ut_hist_strs_layout(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
			 struct ut_hist_strs *l)
{
	unsigned at = 0;

	memset(l, 0, sizeof(*l));
	for (uint8_t i = 0; i < t->nkeys && i < UT_HIST_MAX_KEYS; i++) {
		unsigned n = ut_hist_str_keysize(fmt, ut_hist_field_slot(fmt, t->keys[i].name));

		if (t->keys[i].flags & UT_HF_EXECNAME)
			n = 0; /* common_pid's thread name: the entry's comm */
		l->key_bytes += n ? n : 8;
		l->key_off[i] = (uint16_t)at;
		l->key_size[i] = (uint16_t)n;
		at += n;
	}
	l->keys = at;
	for (uint8_t i = 0; i < t->hv.nvars && i < UT_HIST_MAX_VARS; i++)
		if (ut_hist_var_is_string(t, fmt, i)) {
			l->var_off[i] = (uint16_t)at;
			l->var_size[i] = UT_HIST_STR_MAX;
			at += UT_HIST_STR_MAX;
		}
	for (unsigned j = 0; j < UT_HIST_MAX_PARAMS; j++)
		if (save_is_string(t, fmt, j)) {
			l->save_off[j] = (uint16_t)at;
			l->save_size[j] = UT_HIST_STR_MAX;
			at += UT_HIST_STR_MAX;
		}
	l->size = at;
}

int ut_hist_param_is_string(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
			    const struct ut_hist_action *a, unsigned j)
{
	const struct ut_hist_var *v;

	if (!fmt || j >= a->nparams)
		return -1;
	if (a->param[j][0] != '$')
		return ut_hist_str_keysize(fmt, ut_hist_field_slot(fmt, a->param[j])) > 0;
	v = ut_histvar_find(&t->hv, a->param[j] + 1);
	return v ? ut_hist_var_is_string(t, fmt, (unsigned)(v - t->hv.vars)) : -1;
}
